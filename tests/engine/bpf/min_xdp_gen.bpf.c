// The minimal generator's XDP programs (tests/engine/min_xdp_gen.h), for the speed benchmarks:
// XDP_TX on the sending veth end, as xdp-trafficgen does, with nothing else; XDP_DROP as the sink
// on the receiving end when only the generator is measured.

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

SEC("xdp")
int min_xdp_tx(struct xdp_md *ctx)
{
    (void)ctx;
    return XDP_TX;
}

SEC("xdp")
int min_xdp_drop(struct xdp_md *ctx)
{
    (void)ctx;
    return XDP_DROP;
}

char LICENSE[] SEC("license") = "GPL";
