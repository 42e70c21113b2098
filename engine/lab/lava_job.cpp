#include "engine/lab/lava_job.h"

#include "base/shell_quote.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <map>
#include <optional>

namespace nf::engine::lab {

namespace {

// What the dut runs, read from the recipe's words.
struct Recipe {
    std::string workload;
    std::string rxIface;             // -p iface=
    bool sshConfig = false;          // -p ssh_config= given
    std::vector<std::string> words;  // after "run"
};

std::optional<std::string> paramValue(const std::string& word, const std::string& key)
{
    return word.rfind(key + "=", 0) == 0 ? std::optional(word.substr(key.size() + 1)) : std::nullopt;
}

Result<Recipe> readRecipe(const std::vector<std::string>& words)
{
    if (words.empty() || words.front() != "run") {
        return Error{"the job's recipe is `run WORKLOAD ...` (after --)"};
    }
    Recipe r;
    r.words.assign(words.begin() + 1, words.end());
    if (r.words.empty()) {
        return Error{"the job's recipe names no workload (run udp-rx|xdp-rx|iface-rx ...)"};
    }
    r.workload = r.words.front();
    if (r.workload != "udp-rx" && r.workload != "xdp-rx" && r.workload != "iface-rx") {
        return Error{
            "a LAVA job measures between a generator and a device under test: udp-rx, xdp-rx or "
            "iface-rx, not " +
            r.workload};
    }
    for (std::size_t i = 1; i < r.words.size(); ++i) {
        const std::string& w = r.words[i];
        for (const char* own : {"--db", "--dry-run", "--format"}) {
            if (w == own || w.rfind(std::string(own) + "=", 0) == 0) {
                return Error{std::string("the job sets ") + own + " itself; leave it out of the recipe"};
            }
        }
        std::string param;
        if ((w == "-p" || w == "--param") && i + 1 < r.words.size()) {
            param = r.words[i + 1];
        } else if (w.rfind("--param=", 0) == 0) {
            param = w.substr(8);
        } else if (w.rfind("-p", 0) == 0 && w.size() > 2 && w[2] != '-') {
            param = w.substr(2);
        }
        if (param.empty()) {
            continue;
        }
        if (paramValue(param, "tx_host")) {
            return Error{r.workload == "iface-rx"
                             ? std::string("iface-rx takes no tx_host: the job starts its generator through LAVA")
                             : "the job sets tx_host to the generator role's address; leave it out of the recipe"};
        }
        r.sshConfig = r.sshConfig || paramValue(param, "ssh_config").has_value();
        if (auto v = paramValue(param, "iface")) {
            r.rxIface = *v;
        }
    }
    if (r.rxIface.empty()) {
        return Error{r.workload + " on the dut needs -p iface=NAME, the interface the generator's frames arrive on"};
    }
    return r;
}

bool isHttp(const std::string& url)
{
    return url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
}

// An scp target: [user@]host:dir, or scp://[user@]host[:port]/dir (OpenSSH's scp takes the URI as
// it is, port included); the directory must be named.
bool isScp(const std::string& url)
{
    if (url.rfind("scp://", 0) == 0) {
        const auto slash = url.find('/', 6);
        return slash != std::string::npos && slash > 6 && slash + 1 < url.size();
    }
    const auto colon = url.find(':');
    return colon != std::string::npos && colon > 0 && colon + 1 < url.size() && url.find('/') > colon &&
           url.find("://") == std::string::npos;
}

YAML::Node minutes(int m)
{
    YAML::Node t;
    t["minutes"] = m;
    return t;
}

YAML::Node roles(std::initializer_list<const char*> names)
{
    YAML::Node r(YAML::NodeType::Sequence);
    for (const char* n : names) {
        r.push_back(n);
    }
    r.SetStyle(YAML::EmitterStyle::Flow);
    return r;
}

YAML::Node role(const std::string& deviceType, const std::vector<std::string>& tags, int timeout)
{
    YAML::Node r;
    r["device_type"] = deviceType;
    r["count"] = 1;
    // Either role failing ends the other's job: a generator must not keep sending at a dut that
    // has gone on to another job, nor a dut wait for a generator that is gone.
    r["essential"] = true;
    if (!tags.empty()) {
        r["tags"] = tags;
    }
    r["timeout"] = minutes(timeout);
    return r;
}

// The shell lines (POSIX sh, run by lava-test-shell under `set -e`) shared by both roles: find or
// install noisefloor, and a work directory for this job.
std::vector<std::string> findNoisefloor()
{
    return {
        // fail NAME WHY: a result LAVA shows, then the end of this role's test (and, the roles being
        // essential, of the job).
        R"sh(fail() { lava-test-case "$1" --result fail; lava-test-raise "$2"; exit 1; })sh",
        R"sh(NF=$(command -v "$NOISEFLOOR" || true))sh",
        R"sh(if [ -z "$NF" ] && [ -n "$INSTALL" ]; then sh -c "$INSTALL" || fail noisefloor-found "installing noisefloor failed"; NF=$(command -v "$NOISEFLOOR" || true); fi)sh",
        R"sh(if [ -z "$NF" ]; then fail noisefloor-found "noisefloor ($NOISEFLOOR) is not on this device"; fi)sh",
        R"sh(lava-test-case noisefloor-found --result pass; "$NF" --version)sh",
        // Nothing of the job outlives it on a device that stays up: its files, its generator.
        R"sh(WORK=$(mktemp -d /tmp/noisefloor-lava.XXXXXX); GEN_PID=; trap 'if [ -n "$GEN_PID" ]; then kill "$GEN_PID" 2>/dev/null; fi; rm -rf "$WORK"' EXIT)sh",
    };
}

// A value another role sent (lava-send ... KEY=VALUE), from the file lava-wait fills (lines of
// SENDER:KEY=VALUE; its path is not exported to the test shell, LAVA's default is used).
std::string received(const std::string& var, const std::string& key)
{
    return var + "=$(sed -n 's/.*[: ]" + key + "=\\([^ ]*\\).*/\\1/p;s/^" + key + "=\\([^ ]*\\).*/\\1/p' " +
           "\"${LAVA_MULTI_NODE_CACHE:-/tmp/lava_multi_node_cache.txt}\" | head -n 1)";
}

std::vector<std::string> generatorSteps(const Recipe& recipe)
{
    std::vector<std::string> s = findNoisefloor();
    if (recipe.workload == "iface-rx") {
        s.insert(
            s.end(),
            {
                "lava-wait noisefloor-dut",
                received("DST_MAC", "mac"),
                received("DST", "addr"),
                R"sh(if [ -z "$DST_MAC" ] || [ -z "$DST" ]; then fail noisefloor-generate "the dut sent no MAC and address"; fi)sh",
                // generate ends when its standard input closes: a FIFO held open by the test shell
                // (fd 3) keeps it sending until the dut has measured, then closing it ends it cleanly.
                R"sh(mkfifo "$WORK/stdin")sh",
                R"sh("$NF" generate --iface "$TX_IFACE" --dst-mac "$DST_MAC" --dst "$DST" --report 0 <"$WORK/stdin" >"$WORK/generate.log" 2>&1 & GEN_PID=$!)sh",
                R"sh(exec 3>"$WORK/stdin")sh",
                // A generator that failed at once is said before the dut measures nothing.
                R"sh(sleep 1; if ! kill -0 "$GEN_PID" 2>/dev/null; then cat "$WORK/generate.log"; GEN_PID=; fail noisefloor-generate "noisefloor generate stopped at once"; fi)sh",
                R"sh(lava-send noisefloor-generator name="$(uname -n)" mac="$(cat "/sys/class/net/$TX_IFACE/address")")sh",
                "lava-sync noisefloor-measure",
                "lava-sync noisefloor-measured",
                R"sh(exec 3>&-; GEN_STATUS=0; wait "$GEN_PID" || GEN_STATUS=$?; GEN_PID=; cat "$WORK/generate.log")sh",
                R"sh(if [ "$GEN_STATUS" = 0 ]; then lava-test-case noisefloor-generate --result pass; else lava-test-case noisefloor-generate --result fail; fi)sh",
            });
    } else {
        s.insert(
            s.end(),
            {
                R"sh(CTL=${CONTROL_IFACE:-$(ip -4 route show default | awk '{print $5; exit}')})sh",
                R"sh(HOST=$(ip -4 -o addr show dev "$CTL" | awk '{sub(/\/.*/, "", $4); print $4; exit}'))sh",
                R"sh(if [ -z "$HOST" ]; then fail noisefloor-generator-address "no IPv4 address on ${CTL:-a default route} for the dut to reach this generator by"; fi)sh",
                R"sh(lava-send noisefloor-generator host="$HOST" name="$(uname -n)")sh",
                "lava-sync noisefloor-measure",
                "lava-sync noisefloor-measured",
            });
    }
    return s;
}

// The pair the job asks for, by its tags ("" when none: the devices' host names name it).
std::string pairName(const std::vector<std::string>& tags)
{
    std::string name;
    for (const auto& t : tags) {
        name += (name.empty() ? "" : "+") + t;
    }
    return name;
}

std::string quotedRecipe(const Recipe& recipe)
{
    std::string line = R"sh("$NF" run)sh";
    for (const auto& w : recipe.words) {
        line += ' ' + shellQuote(w);
    }
    return line;
}

std::vector<std::string> dutSteps(const Recipe& recipe)
{
    std::vector<std::string> s = findNoisefloor();
    std::string run = quotedRecipe(recipe);
    if (recipe.workload == "iface-rx") {
        s.insert(
            s.end(),
            {
                R"sh(MAC=$(cat "/sys/class/net/$RX_IFACE/address" 2>/dev/null || true))sh",
                R"sh(ADDR=$(ip -4 -o addr show dev "$RX_IFACE" 2>/dev/null | awk '{sub(/\/.*/, "", $4); print $4; exit}'))sh",
                R"sh(if [ -z "$MAC" ] || [ -z "$ADDR" ]; then fail noisefloor-run "$RX_IFACE has no MAC or IPv4 address here"; fi)sh",
                R"sh(lava-send noisefloor-dut mac="$MAC" addr="$ADDR")sh",
                "lava-wait noisefloor-generator",
                received("GENERATOR", "name"),
            });
    } else {
        s.insert(s.end(),
                 {
                     "lava-wait noisefloor-generator",
                     received("GEN_HOST", "host"),
                     received("GENERATOR", "name"),
                     R"sh(if [ -z "$GEN_HOST" ]; then fail noisefloor-run "the generator sent no address"; fi)sh",
                 });
        run += R"sh( -p "tx_host=${GEN_LOGIN:+$GEN_LOGIN@}$GEN_HOST")sh";
        if (!recipe.sshConfig) {
            run += R"sh(${SSH_CONFIG:+ -p "ssh_config=$SSH_CONFIG"})sh";
        }
    }
    run += R"sh( --db "$WORK/runs.db" >"$WORK/run.log" 2>&1 || RUN_STATUS=$?)sh";
    s.insert(
        s.end(),
        {
            R"sh(if [ -z "$GENERATOR" ]; then fail noisefloor-run "the generator sent no name"; fi)sh",
            "lava-sync noisefloor-measure",
            // Quiet while measuring: the run's output goes to a file, printed once the roles are past
            // the measured phase.
            "RUN_STATUS=0; " + run,
            "lava-sync noisefloor-measured",
            R"sh(cat "$WORK/run.log")sh",
            R"sh(if [ "$RUN_STATUS" != 0 ]; then fail noisefloor-run "noisefloor run failed ($RUN_STATUS)"; fi)sh",
            R"sh(lava-test-case noisefloor-run --result pass; "$NF" compare last --db "$WORK/runs.db" || true)sh",
            // The results first: a failed upload must not lose what LAVA shows.
            R"sh("$NF" lava results last --db "$WORK/runs.db" >"$WORK/results")sh",
            R"sh(while read -r NAME RESULT MEASUREMENT UNITS; do if [ -n "$MEASUREMENT" ]; then lava-test-case "$NAME" --result "$RESULT" --measurement "$MEASUREMENT" --units "$UNITS"; else lava-test-case "$NAME" --result "$RESULT"; fi; done <"$WORK/results")sh",
            R"sh(FILE="noisefloor-$LAVA_JOB_ID-$(uname -n).db")sh",
            R"sh("$NF" lava export last --db "$WORK/runs.db" -o "$WORK/$FILE" --job "$LAVA_JOB_ID" --device "$(uname -n)" --worker "${LAVA_DISPATCHER_IP:-}" --generator "$GENERATOR" --pair "$PAIR")sh",
            R"sh(REF="${ARTIFACTS%/}/$FILE"; UPLOADED=0; case "$ARTIFACTS" in http://*|https://*) curl --fail --silent --show-error --upload-file "$WORK/$FILE" "$REF" && UPLOADED=1;; *) scp -q -o BatchMode=yes ${SSH_CONFIG:+-F "$SSH_CONFIG"} "$WORK/$FILE" "$REF" && UPLOADED=1;; esac)sh",
            R"sh(if [ "$UPLOADED" = 1 ]; then lava-test-reference noisefloor-artifact --result pass --reference "$REF"; else lava-test-case noisefloor-artifact --result fail; fi)sh",
        });
    return s;
}

YAML::Node definition(const std::string& name, const std::string& description, const std::vector<std::string>& steps,
                      const std::map<std::string, std::string>& params)
{
    YAML::Node metadata;
    metadata["format"] = "Lava-Test Test Definition 1.0";
    metadata["name"] = name;
    metadata["description"] = description;
    YAML::Node repo;
    repo["metadata"] = metadata;
    // The settings as the test's first lines, where a submitter can change them: lava-server
    // refuses `params` in an inline definition, and LAVA's strict schema `parameters` beside one.
    std::vector<std::string> lines;
    lines.reserve(params.size() + steps.size());
    for (const auto& [k, v] : params) {
        lines.push_back(k + "=" + shellQuote(v));
    }
    lines.insert(lines.end(), steps.begin(), steps.end());
    repo["run"]["steps"] = lines;
    YAML::Node d;
    d["from"] = "inline";
    d["name"] = name;
    d["path"] = "inline/" + name + ".yaml";
    d["repository"] = repo;
    return d;
}

// One entry of the job's actions: {kind: body} (deploy, boot or test).
YAML::Node action(const char* kind, const YAML::Node& body)
{
    YAML::Node a;
    a[kind] = body;
    return a;
}

YAML::Node testAction(const char* who, const YAML::Node& def, int timeout)
{
    YAML::Node t;
    t["role"] = roles({who});
    t["timeout"] = minutes(timeout);
    t["definitions"].push_back(def);
    return action("test", t);
}

YAML::Node sshDeploy(std::initializer_list<const char*> who)
{
    YAML::Node d;
    d["role"] = roles(who);
    d["to"] = "ssh";
    d["os"] = "debian";
    d["timeout"] = minutes(10);
    return action("deploy", d);
}

YAML::Node sshBoot(std::initializer_list<const char*> who)
{
    YAML::Node b;
    b["role"] = roles(who);
    b["method"] = "ssh";
    b["connection"] = "ssh";
    b["prompts"] = std::vector<std::string>{"root@", "# ", "\\$ "};
    b["timeout"] = minutes(5);
    return action("boot", b);
}

YAML::Node url(const std::string& u)
{
    YAML::Node n;
    n["url"] = u;
    return n;
}

// The dut's deploy and boot when the kernel under test is deployed.
std::vector<YAML::Node> kernelActions(const KernelDeploy& k)
{
    YAML::Node deploy;
    deploy["role"] = roles({kDutRole});
    deploy["timeout"] = minutes(10);
    YAML::Node boot;
    boot["role"] = roles({kDutRole});
    boot["timeout"] = minutes(10);
    boot["prompts"] = std::vector<std::string>{"root@", "# "};
    if (k.method == "tftp") {
        deploy["to"] = "tftp";
        deploy["kernel"] = url(k.kernel);
        if (!k.kernelType.empty()) {
            deploy["kernel"]["type"] = k.kernelType;
        }
        if (!k.ramdisk.empty()) {
            deploy["ramdisk"] = url(k.ramdisk);
        }
        if (!k.rootfs.empty()) {
            deploy["nfsrootfs"] = url(k.rootfs);
        }
        if (!k.modules.empty()) {
            deploy["modules"] = url(k.modules);
        }
        if (!k.dtb.empty()) {
            deploy["dtb"] = url(k.dtb);
        }
        deploy["os"] = "debian";
        boot["method"] = k.bootMethod.empty() ? "ipxe" : k.bootMethod;
        boot["commands"] = k.rootfs.empty() ? "ramdisk" : "nfs";
    } else {
        // kexec: the dut (an ssh device running its usual kernel) fetches the images from the
        // dispatcher and kexecs into them; LAVA waits for the new kernel's banner.
        deploy["to"] = "downloads";
        deploy["images"]["kernel"] = url(k.kernel);
        if (!k.ramdisk.empty()) {
            deploy["images"]["initrd"] = url(k.ramdisk);
        }
        if (!k.dtb.empty()) {
            deploy["images"]["dtb"] = url(k.dtb);
        }
        boot["method"] = "kexec";
        boot["deploy"] = true;
        boot["kernel"] = "/tmp/noisefloor-kernel";
        if (!k.ramdisk.empty()) {
            boot["initrd"] = "/tmp/noisefloor-initrd";
        }
        if (!k.dtb.empty()) {
            boot["dtb"] = "/tmp/noisefloor-dtb";
        }
        boot["options"] = std::vector<std::string>{"--reuse-cmdline"};
        boot["boot_message"] = "Linux version";
    }
    std::vector<YAML::Node> out{action("deploy", deploy)};
    if (k.method == "kexec") {  // the images are fetched from the dut's usual kernel, over ssh
        out.push_back(sshDeploy({kDutRole}));
        out.push_back(sshBoot({kDutRole}));
    }
    out.push_back(action("boot", boot));
    return out;
}

}  // namespace

Result<std::string> lavaJobYaml(const LavaJobSpec& spec)
{
    const Recipe recipe = NF_TRY(readRecipe(spec.recipe));
    if (spec.artifacts.empty()) {
        return Error{"--artifacts URL is needed: LAVA keeps no files from a device, so the dut uploads its run there"};
    }
    if (!isHttp(spec.artifacts) && !isScp(spec.artifacts)) {
        return Error{"--artifacts " + spec.artifacts + ": neither an http(s) URL (PUT) nor an scp target (host:dir)"};
    }
    if (recipe.workload == "iface-rx" && spec.txIface.empty()) {
        return Error{"iface-rx's generator is started by the job: --tx-iface NAME names its sending interface"};
    }
    const auto& k = spec.kernel;
    if (!k.method.empty() && k.method != "tftp" && k.method != "kexec") {
        return Error{"--deploy " + k.method + ": tftp or kexec"};
    }
    if (!k.method.empty() && k.kernel.empty()) {
        return Error{"--deploy " + k.method + " needs --kernel URL"};
    }
    if (k.method.empty() && !k.kernel.empty()) {
        return Error{"--kernel needs --deploy tftp|kexec: how LAVA puts it on the dut"};
    }
    if (recipe.workload != "iface-rx" && spec.noisefloor.find('/') != std::string::npos) {
        return Error{"--noisefloor " + spec.noisefloor + ": " + recipe.workload +
                     "'s generator is started over ssh as `noisefloor` from the generator's PATH; name a command "
                     "on PATH on both devices"};
    }
    if (spec.visibility != "public" && spec.visibility != "personal") {
        return Error{"--visibility " + spec.visibility + ": public or personal"};
    }
    const std::string& artifacts = spec.artifacts;
    YAML::Node job;
    job["job_name"] = spec.name.empty() ? "noisefloor " + recipe.workload : spec.name;
    job["timeouts"]["job"] = minutes(spec.timeoutMinutes);
    job["timeouts"]["action"] = minutes(std::min(spec.timeoutMinutes, 10));
    job["timeouts"]["connection"] = minutes(2);
    job["visibility"] = spec.visibility;
    job["priority"] = "medium";
    job["metadata"]["noisefloor.workload"] = recipe.workload;
    job["metadata"]["noisefloor.recipe"] = quotedRecipe(recipe).substr(6);
    for (const auto& [key, value] : spec.metadata) {
        job["metadata"][key] = value;
    }
    YAML::Node mn = job["protocols"]["lava-multinode"];
    mn["roles"][kGeneratorRole] = role(spec.generatorType, spec.tags, spec.timeoutMinutes);
    mn["roles"][kDutRole] = role(spec.dutType, spec.tags, spec.timeoutMinutes);
    // The longest a lava-sync or lava-wait may take: the generator waits in one for the whole
    // measured phase, and in the first while the dut deploys and boots.
    mn["timeout"] = minutes(std::max(1, spec.timeoutMinutes - 5));

    YAML::Node actions(YAML::NodeType::Sequence);
    if (k.method.empty()) {
        actions.push_back(sshDeploy({kGeneratorRole, kDutRole}));
        actions.push_back(sshBoot({kGeneratorRole, kDutRole}));
    } else {
        actions.push_back(sshDeploy({kGeneratorRole}));
        actions.push_back(sshBoot({kGeneratorRole}));
        for (auto& a : kernelActions(k)) {
            actions.push_back(a);
        }
    }
    const int testMinutes = std::max(1, spec.timeoutMinutes - 5);
    actions.push_back(testAction(
        kGeneratorRole,
        definition("noisefloor-generator",
                   recipe.workload == "iface-rx" ? "sends to the dut while it measures (noisefloor generate)"
                                                 : "says where it is; the dut's noisefloor drives it over ssh",
                   generatorSteps(recipe),
                   {{"NOISEFLOOR", spec.noisefloor},
                    {"INSTALL", spec.install},
                    {"TX_IFACE", spec.txIface},
                    {"CONTROL_IFACE", spec.controlIface}}),
        testMinutes));
    actions.push_back(testAction(
        kDutRole,
        definition("noisefloor-dut", "measures " + recipe.workload + " and uploads the run", dutSteps(recipe),
                   {{"NOISEFLOOR", spec.noisefloor},
                    {"INSTALL", spec.install},
                    {"RX_IFACE", recipe.rxIface},
                    {"GEN_LOGIN", spec.generatorLogin},
                    {"SSH_CONFIG", spec.sshConfig},
                    {"PAIR", pairName(spec.tags)},
                    {"ARTIFACTS", artifacts}}),
        testMinutes));
    job["actions"] = actions;

    YAML::Emitter out;
    out << job;
    if (!out.good()) {
        return Error{"writing the job's YAML failed: " + out.GetLastError()};
    }
    return std::string(
               "# A LAVA MultiNode job written by noisefloor lava job: submit it with\n"
               "# `lavacli jobs submit FILE`, then `noisefloor lava collect` its artefacts.\n") +
           out.c_str() + "\n";
}

}  // namespace nf::engine::lab
