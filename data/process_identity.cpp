#include "data/process_identity.h"

#include <signal.h>

#include <cerrno>
#include <fstream>
#include <iterator>
#include <limits>
#include <sstream>

namespace nf::data {

std::string processIdentity(pid_t pid)
{
    std::ifstream bootFile("/proc/sys/kernel/random/boot_id");
    std::string bootId;
    std::getline(bootFile, bootId);
    std::ifstream statFile("/proc/" + std::to_string(pid) + "/stat");
    std::string stat((std::istreambuf_iterator<char>(statFile)), std::istreambuf_iterator<char>());
    std::size_t paren = stat.rfind(')');  // the command name may contain spaces and parentheses
    if (bootId.empty() || paren == std::string::npos) {
        return {};
    }
    std::istringstream fields(stat.substr(paren + 1));
    std::string field;
    for (int i = 3; i <= 22 && fields >> field; ++i) {  // field 22 is starttime
        if (i == 22) {
            return bootId + "/" + field;
        }
    }
    return {};
}

bool writerAlive(std::int64_t pid, const std::string& identity)
{
    if (pid <= 0 || pid > std::numeric_limits<pid_t>::max()) {
        return false;
    }
    if (kill(static_cast<pid_t>(pid), 0) == -1 && errno == ESRCH) {
        return false;
    }
    if (identity.empty()) {
        return true;  // not recorded: trust the pid
    }
    std::string current = processIdentity(static_cast<pid_t>(pid));
    return current.empty() || current == identity;
}

}  // namespace nf::data
