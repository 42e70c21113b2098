#include "engine/catalog/command_config.h"

#include "base/system_facts.h"

namespace nf::engine::catalog {

Result<CommandConfig> commandConfig(const ParamSet& p)
{
    CommandConfig c;
    c.text = p.text("cmd");
    if (c.text.empty()) {
        return Error{"cmd is empty: set it to the program and its arguments"};
    }
    if (p.text("shell") == "yes") {
        c.argv = {"/bin/sh", "-c", c.text};
    } else {
        auto argv = splitCommand(c.text);
        if (!argv) {
            return Error{argv.error().message};
        }
        c.argv = std::move(*argv);
    }
    c.prepare = p.text("prepare");
    c.cleanup = p.text("cleanup");
    c.timeout = p.real("timeout");
    if (!p.text("metric_regex").empty()) {
        try {
            c.regex.emplace(p.text("metric_regex"), std::regex::ECMAScript);
        } catch (const std::regex_error& e) {
            return Error{"metric_regex '" + p.text("metric_regex") + "': " + e.what()};
        }
        if (c.regex->mark_count() != 1) {
            return Error{"metric_regex '" + p.text("metric_regex") + "' has " + std::to_string(c.regex->mark_count()) +
                         " capture groups; it needs exactly one"};
        }
    }
    c.extractor = p.text("extractor") == "none" ? "" : p.text("extractor");
    if (c.regex && !c.extractor.empty()) {
        return Error{"give metric_regex or extractor, not both"};
    }
    c.metricName = p.text("metric_name");
    c.metricUnit = p.text("metric_unit");
    c.higherIsBetter = p.text("higher_is_better") == "yes";
    if (!p.text("counter_cpus").empty()) {
        bool ok = false;
        c.counterCpus = base::parseCpuList(p.text("counter_cpus"), &ok);
        if (!ok) {
            return Error{"counter_cpus '" + p.text("counter_cpus") + "' is not a CPU list"};
        }
    }
    return c;
}

Result<std::vector<std::string>> splitCommand(const std::string& text)
{
    std::vector<std::string> words;
    std::string word;
    bool inWord = false;
    char quote = 0;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char ch = text[i];
        if (quote != 0) {
            if (ch == quote) {
                quote = 0;
            } else if (ch == '\\' && quote == '"' && i + 1 < text.size()) {
                word += text[++i];
            } else {
                word += ch;
            }
        } else if (ch == '\'' || ch == '"') {
            quote = ch;
            inWord = true;
        } else if (ch == '\\' && i + 1 < text.size()) {
            word += text[++i];
            inWord = true;
        } else if (ch == ' ' || ch == '\t' || ch == '\n') {
            if (inWord) {
                words.push_back(std::move(word));
                word.clear();
                inWord = false;
            }
        } else {
            word += ch;
            inWord = true;
        }
    }
    if (quote != 0) {
        return Error{"cmd '" + text + "': unterminated " + std::string(1, quote) + " quote"};
    }
    if (inWord) {
        words.push_back(std::move(word));
    }
    return words;
}

}  // namespace nf::engine::catalog
