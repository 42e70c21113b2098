// The XDP program of the xdp-rx workload, compiled with clang at build time and embedded in
// noisefloor through a bpftool skeleton.
//
// nf_xsk_redirect: attached to the receiving interface, it redirects every frame of a receive queue
// to the AF_XDP socket registered for that queue in nf_xsks; a queue without a socket passes its
// frames to the stack unchanged (the XDP_PASS fallback of bpf_redirect_map).

#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
    __uint(type, BPF_MAP_TYPE_XSKMAP);
    __uint(max_entries, 256);
    __type(key, __u32);
    __type(value, __u32);
} nf_xsks SEC(".maps");

SEC("xdp")
int nf_xsk_redirect(struct xdp_md *ctx)
{
    return bpf_redirect_map(&nf_xsks, ctx->rx_queue_index, XDP_PASS);
}

char LICENSE[] SEC("license") = "GPL";
