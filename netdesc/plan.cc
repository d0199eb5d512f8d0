#include "netdesc/plan.h"

#include <cctype>
#include <cstdlib>

namespace radar::netdesc {
namespace {

void put(std::string& out, const std::string& token) {
  out += std::to_string(token.size());
  out += ':';
  out += token;
  out += ' ';
}

// Splits "<length>:<bytes> " tokens.
bool tokens(const std::string& text, std::vector<std::string>* out, std::string* error) {
  size_t at = 0;
  while (at < text.size()) {
    if (text[at] == ' ' || text[at] == '\n') {
      ++at;
      continue;
    }
    const size_t colon = text.find(':', at);
    if (colon == std::string::npos || colon == at || colon - at > 9 ||
        text.find_first_not_of("0123456789", at) != colon) {
      *error = "malformed token at byte " + std::to_string(at);
      return false;
    }
    const size_t length = std::strtoul(text.c_str() + at, nullptr, 10);
    if (length > text.size() - colon - 1) {
      *error = "token at byte " + std::to_string(at) + " runs past the end";
      return false;
    }
    out->push_back(text.substr(colon + 1, length));
    at = colon + 1 + length;
  }
  return true;
}

}  // namespace

std::string portVariable(const std::string& port) {
  std::string name = kPortVariablePrefix;
  for (char c : port) name += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return name;
}

std::string writePlan(const Plan& plan) {
  std::string out;
  for (const auto& c : plan.channels) {
    put(out, "channel");
    put(out, c.id);
    put(out, c.socketpair ? "socketpair" : "pipe");
    out += '\n';
  }
  for (const auto& p : plan.processes) {
    put(out, "process");
    put(out, p.name);
    put(out, p.executable);
    put(out, p.argv0);
    put(out, p.stdin_null ? "null" : "inherit");
    out += '\n';
    for (const auto& a : p.args) {
      put(out, "arg");
      put(out, a);
      out += '\n';
    }
    for (const auto& e : p.env) {
      put(out, "env");
      put(out, e);
      out += '\n';
    }
    for (const auto& port : p.ports) {
      std::string ends;
      for (const auto& e : port.ends) ends += (ends.empty() ? "" : ",") + e;
      put(out, "port");
      put(out, port.name);
      put(out, ends);
      out += '\n';
    }
  }
  return out;
}

bool readPlan(const std::string& text, Plan* plan, std::string* error) {
  std::vector<std::string> t;
  if (!tokens(text, &t, error)) return false;
  auto need = [&](size_t at, size_t n) {
    if (at + n <= t.size()) return true;
    *error = "'" + t[at] + "' is missing its values";
    return false;
  };
  for (size_t at = 0; at < t.size();) {
    const std::string& k = t[at];
    if (k == "channel") {
      if (!need(at, 3)) return false;
      if (t[at + 2] != "pipe" && t[at + 2] != "socketpair") {
        *error = "unknown channel kind '" + t[at + 2] + "'";
        return false;
      }
      plan->channels.push_back({t[at + 1], t[at + 2] == "socketpair"});
      at += 3;
    } else if (k == "process") {
      if (!need(at, 5)) return false;
      PlanProcess p;
      p.name = t[at + 1];
      p.executable = t[at + 2];
      p.argv0 = t[at + 3];
      p.stdin_null = t[at + 4] == "null";
      plan->processes.push_back(std::move(p));
      at += 5;
    } else if (k == "arg" || k == "env" || k == "port") {
      if (plan->processes.empty()) {
        *error = "'" + k + "' before any process";
        return false;
      }
      PlanProcess& p = plan->processes.back();
      if (k == "port") {
        if (!need(at, 3)) return false;
        PlanPort port{t[at + 1], {}};
        const std::string& ends = t[at + 2];
        for (size_t b = 0; b < ends.size();) {
          size_t e = ends.find(',', b);
          if (e == std::string::npos) e = ends.size();
          if (e > b) port.ends.push_back(ends.substr(b, e - b));
          b = e + 1;
        }
        p.ports.push_back(std::move(port));
        at += 3;
      } else {
        if (!need(at, 2)) return false;
        (k == "arg" ? p.args : p.env).push_back(t[at + 1]);
        at += 2;
      }
    } else {
      *error = "unknown record '" + k + "'";
      return false;
    }
  }
  return true;
}

}  // namespace radar::netdesc
