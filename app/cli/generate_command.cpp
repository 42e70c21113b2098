// noisefloor generate: the generator side of a two-host test, run on the generator host (by hand,
// or by the engine on the device under test through ssh). Sends UDP frames only out of the named
// interface, only to the destination MAC and address given, at an optional rate limit; reports
// its counts as JSON lines on stdout; ends when its stdin closes (ssh dropped) or at SIGINT/SIGTERM.

#include <arpa/inet.h>
#include <poll.h>
#include <unistd.h>

#include <iostream>
#include <nlohmann/json.hpp>

#include "app/cli/cli.h"
#include "app/cli/signal_stop.h"
#include "engine/net/remote_generator.h"
#include "nf_version.h"

namespace nf::cli {

namespace {

struct GenerateOptions {
    std::string iface;
    std::string dstMac;
    std::string dst;
    int port = 5001;
    int size = 64;
    int batch = 64;
    double rate = 0;
    int cpu = 0;
    bool control = false;
    double report = 1.0;
    std::string expectVersion;
};

void emit(const nlohmann::json& j)
{
    std::cout << j.dump() << '\n' << std::flush;
}

int refuse(int status, const std::string& message)
{
    emit({{"event", "error"}, {"message", message}});
    return fail(status, message);
}

nlohmann::json counts(const char* event, const engine::net::Generator& gen)
{
    nlohmann::json j = {{"event", event}, {"offered", gen.offered()}, {"sent", gen.sent()}};
    if (!gen.warning().empty()) {
        j["warning"] = gen.warning();
    }
    return j;
}

int runGenerate(const GenerateOptions& o)
{
    namespace net = engine::net;
    if (!o.expectVersion.empty() && o.expectVersion != NF_VERSION) {
        return refuse(kExitRuntime, std::string("this is noisefloor ") + NF_VERSION + ", the engine runs " +
                                        o.expectVersion + " (install the same version on both hosts)");
    }
    const auto mac = net::parseMac(o.dstMac);
    if (!mac) {
        return refuse(kExitUsage, "--dst-mac " + o.dstMac + ": not a MAC address (aa:bb:cc:dd:ee:ff)");
    }
    net::Endpoint to;
    to.mac = *mac;
    if (::inet_pton(AF_INET, o.dst.c_str(), &to.addr) != 1) {
        return refuse(kExitUsage, "--dst " + o.dst + ": not an IPv4 address");
    }
    std::string iface = o.iface;
    if (iface == "route") {
        auto routed = net::routeDevice(to.addr);
        if (!routed) {
            return refuse(kExitRuntime, routed.error().message);
        }
        iface = *routed;
    }
    auto from = net::localEndpoint(iface);
    if (!from) {
        return refuse(kExitRuntime, from.error().message);
    }
    const net::GeneratorOptions g{
        .cpu = o.cpu, .batch = o.batch, .payload = o.size, .rate = o.rate, .port = static_cast<std::uint16_t>(o.port)};
    auto gen = net::makePacketGenerator(*from, to, g);
    if (!gen) {
        return refuse(kExitRuntime, gen.error().message);
    }
    SignalStop signals;
    emit({{"event", "hello"},
          {"version", NF_VERSION},
          {"iface", from->ifname},
          {"mac", net::formatMac(from->mac)},
          {"addr", net::formatAddr(from->addr)},
          {"dst_mac", net::formatMac(to.mac)},
          {"dst", net::formatAddr(to.addr)},
          {"generator", (*gen)->describe()}});
    bool running = false;
    const auto startSending = [&]() -> bool {
        if (auto r = (*gen)->start(); !r) {
            emit({{"event", "error"}, {"message", r.error().message}});
            return false;
        }
        running = true;
        return true;
    };
    if (!o.control && !startSending()) {
        return kExitRuntime;
    }
    std::string buffer;
    std::string why = "stdin closed";
    auto nextReport = std::chrono::steady_clock::now() + std::chrono::duration<double>(o.report);
    while (!signals.token().stop_requested()) {
        pollfd p{0, POLLIN, 0};
        if (::poll(&p, 1, 100) > 0) {
            char buf[1024];
            const ssize_t n = ::read(0, buf, sizeof buf);
            if (n <= 0) {
                break;  // the engine, or ssh, is gone
            }
            buffer.append(buf, static_cast<std::size_t>(n));
        }
        for (auto nl = buffer.find('\n'); nl != std::string::npos; nl = buffer.find('\n')) {
            const std::string line = buffer.substr(0, nl);
            buffer.erase(0, nl + 1);
            if (!o.control) {
                continue;
            }
            if (line == "start") {
                if (!startSending()) {
                    continue;
                }
                emit(counts("started", **gen));
            } else if (line == "stop") {
                (*gen)->stop();
                running = false;
                emit(counts("stopped", **gen));
            } else if (line == "count") {
                emit(counts("count", **gen));
            } else {
                emit({{"event", "error"}, {"message", "unknown request '" + line.substr(0, 40) + "'"}});
            }
        }
        if (!o.control && o.report > 0 && std::chrono::steady_clock::now() >= nextReport) {
            emit(counts("count", **gen));
            nextReport += std::chrono::duration<double>(o.report);
        }
    }
    (*gen)->stop();
    (void)running;
    if (signals.signal().load() != 0) {
        why = signalName(signals.signal().load());
    }
    nlohmann::json last = counts("end", **gen);
    last["why"] = why;
    emit(last);
    return signals.exitStatus();
}

}  // namespace

Command addGenerateCommand(CLI::App& app)
{
    auto o = std::make_shared<GenerateOptions>();
    auto* sub = app.add_subcommand("generate",
                                   "The generator side of a two-host test: send UDP frames out of one interface to one "
                                   "MAC and address, report counts as JSON lines, end when stdin closes");
    sub->add_option("--iface", o->iface, "interface to send out of ('route': the one the route to --dst uses)")
        ->required();
    sub->add_option("--dst-mac", o->dstMac, "destination MAC (the receiving interface's)")->required();
    sub->add_option("--dst", o->dst, "destination IPv4 address (the receiving interface's)")->required();
    sub->add_option("--port", o->port, "destination UDP port")->check(CLI::Range(1, 65535))->capture_default_str();
    sub->add_option("--size", o->size, "UDP payload bytes")->check(CLI::Range(1, 1472))->capture_default_str();
    sub->add_option("--batch", o->batch, "frames per sendmmsg call")->check(CLI::Range(1, 1024))->capture_default_str();
    sub->add_option("--rate", o->rate, "packets per second; 0 = as fast as it goes")
        ->check(CLI::Range(0.0, 1e9))
        ->capture_default_str();
    sub->add_option("--cpu", o->cpu, "CPU of the generator thread")->check(CLI::Range(0, 4095))->capture_default_str();
    sub->add_flag("--control", o->control,
                  "wait for requests on stdin (start, stop, count), one JSON answer each, instead of sending at once");
    sub->add_option("--report", o->report, "seconds between count lines without --control; 0 = none")
        ->check(CLI::Range(0.0, 3600.0))
        ->capture_default_str();
    sub->add_option("--expect-version", o->expectVersion, "refuse to run unless this is noisefloor VERSION");
    return {sub, [o] { return runGenerate(*o); }, true};
}

}  // namespace nf::cli
