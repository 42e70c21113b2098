// XDP programs of the live testbed, compiled with clang at build time and embedded in noisefloor
// through a bpftool skeleton.
//
// nf_xdp_tx: run with BPF_PROG_RUN in live-frames mode on the sending veth end, it sends every
// injected frame out of that device, so it arrives on the receiving end (the xdp-trafficgen method).
// It counts the frames it sends in a per-CPU counter: a live-frames call interrupted by a signal
// returns -EINTR without saying how many frames it ran, so the generator reads what it offered
// here, at every sample boundary.
// With nf_dest_port set (network order; 0 leaves the frame as injected) it writes that UDP
// destination port into every frame: the engine flips it between variants side by side without
// ending the live-frames call. The UDP checksum is 0 (none, allowed over IPv4), so it needs no update.
// With nf_redirect set (before the first call) every frame goes instead out of the device in
// nf_gen_devs[nf_dest_dev], by XDP_REDIRECT through a DEVMAP: variants side by side each on their own
// veth pair, which the engine flips between without ending the call. A DEVMAP entry names a device
// of the namespace that wrote it, so one program reaches every testbed's sending end. (In live-frames
// mode XDP_TX is itself a redirect to the ingress device, flushed after each kernel batch.)
// nf_xdp_pass: attached to the receiving end when GRO is off, it gives that end the NAPI instance
// that frames sent by XDP need, and passes every frame to the stack unchanged.

#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_helpers.h>

volatile __u16 nf_dest_port = 0;
volatile __u32 nf_redirect = 0;
volatile __u32 nf_dest_dev = 0;

struct {
    __uint(type, BPF_MAP_TYPE_DEVMAP);
    __uint(max_entries, 1); /* set to the number of testbeds before loading */
    __type(key, __u32);
    __type(value, __u32);
} nf_gen_devs SEC(".maps");

struct {
    __uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
    __uint(max_entries, 1);
    __type(key, __u32);
    __type(value, __u64);
} nf_gen_sent SEC(".maps");

SEC("xdp")
int nf_xdp_tx(struct xdp_md *ctx)
{
    __u16 port = nf_dest_port;
    if (port != 0) {
        void *data = (void *)(long)ctx->data;
        void *end = (void *)(long)ctx->data_end;
        struct udphdr *udp = data + sizeof(struct ethhdr) + sizeof(struct iphdr);
        if ((void *)(udp + 1) > end)
            return XDP_ABORTED;
        udp->dest = port;
    }
    __u32 key = 0;
    __u64 *sent = bpf_map_lookup_elem(&nf_gen_sent, &key);
    if (sent)
        *sent += 1;
    if (nf_redirect)
        return bpf_redirect_map(&nf_gen_devs, nf_dest_dev, 0);
    return XDP_TX;
}

SEC("xdp")
int nf_xdp_pass(struct xdp_md *ctx)
{
    (void)ctx;
    return XDP_PASS;
}

char LICENSE[] SEC("license") = "GPL";
