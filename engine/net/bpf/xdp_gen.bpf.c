// XDP programs of the live testbed, compiled with clang at build time and embedded in noisefloor
// through a bpftool skeleton.
//
// nf_xdp_tx: run with BPF_PROG_RUN in live-frames mode on the sending veth end, it sends every
// injected frame out of that device, so it arrives on the receiving end (the xdp-trafficgen method).
// nf_xdp_pass: attached to the receiving end when GRO is off, it gives that end the NAPI instance
// that frames sent by XDP need, and passes every frame to the stack unchanged.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int nf_xdp_tx(struct xdp_md *ctx)
{
    (void)ctx;
    return XDP_TX;
}

SEC("xdp")
int nf_xdp_pass(struct xdp_md *ctx)
{
    (void)ctx;
    return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
