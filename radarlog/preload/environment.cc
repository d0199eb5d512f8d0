// The recorder's environment (see environment.h).
#include "preload/environment.h"

#include <limits.h>

#include <cstring>

#include "inject/text.h"
#include "log/recorder_env.h"
#include "log/stop_at.h"
#include "log/sys.h"
#include "preload/state.h"

#include "log/injected.h"  // last: it poisons what injected code must not call

namespace radar::preload {
using namespace radar::inject;  // text without libc state

namespace {

bool startsWith(const char* s, const char* prefix) { return std::strncmp(s, prefix, std::strlen(prefix)) == 0; }

}  // namespace

const char* findEnv(char* const* envp, const char* name) {
  const size_t len = std::strlen(name);
  for (char* const* e = envp; e && *e; ++e)
    if (std::strncmp(*e, name, len) == 0 && (*e)[len] == '=') return *e + len + 1;
  return nullptr;
}

void parseConfig(char* const* envp, const char* self_path, Config* config) {
  Config& c = *config;
  const char* dir = findEnv(envp, "RADAR_DIR");
  if (!dir || !*dir || std::strlen(dir) >= sizeof(c.dir) - 64) return;
  std::strcpy(c.dir, dir);
  if (const char* id = findEnv(envp, "RADAR_RECORDING_ID")) {
    for (int i = 0; i < 16 && id[0] && id[1]; ++i, id += 2) {
      char two[3] = {id[0], id[1], 0};
      const char* p = two;
      c.recording_id[i] = static_cast<uint8_t>(sys::parseHex(p));
    }
  }
  if (const char* limit = findEnv(envp, "RADAR_PAYLOAD_LIMIT")) {
    c.has_payload_limit = true;
    c.payload_limit = parseDec(limit);
  }
  if (const char* tail = findEnv(envp, "RADAR_TAIL")) c.tail_capacity = static_cast<uint32_t>(parseDec(tail));
  if (const char* nondet = findEnv(envp, "RADAR_NONDET")) c.nondet = nondet[0] == '1';
  if (const char* sync = findEnv(envp, "RADAR_SYNC")) c.sync = sync[0] == '1';
  if (const char* keep = findEnv(envp, "RADAR_KEEP_WRITES")) c.keep_writes = keep[0] == '1';
  if (const char* dormant = findEnv(envp, "RADAR_DORMANT")) c.dormant = dormant[0] == '1';
  if (const char* flight = findEnv(envp, "RADAR_FLIGHT")) c.flight = flight[0] == '1';
  if (const char* copies = findEnv(envp, "RADAR_COPIES")) c.same_bytes = copies[0] != '1';
  if (const char* boot = findEnv(envp, "RADAR_BOOT_ID")) appendStr(c.boot_id, 0, sizeof(c.boot_id), boot);
  if (const char* host = findEnv(envp, "RADAR_HOST")) appendStr(c.host, 0, sizeof(c.host), host);
  if (const char* redact = findEnv(envp, "RADAR_REDACT")) {
    // Cut whole patterns only: half a pattern would redact the wrong names.
    if (std::strlen(redact) < sizeof(c.redact))
      appendStr(c.redact, 0, sizeof(c.redact), redact);
    else
      appendStr(c.redact, 0, sizeof(c.redact), log::kDefaultRedactPatterns);
  }
  // A condition too long to keep is left to radar record, whole.
  if (const char* stop = findEnv(envp, log::kStopAtVariable); stop && std::strlen(stop) < sizeof(c.stop_at))
    appendStr(c.stop_at, 0, sizeof(c.stop_at), stop);
  if (c.flight || c.stop_at[0] || c.has_payload_limit || c.dormant) c.same_bytes = false;
  if (const char* ext = findEnv(envp, "RADAR_EXTERNAL")) {
    while (*ext && c.external_count < 32) {
      const uint64_t dev = parseDec(ext);
      if (*ext != ':') break;
      ++ext;
      const uint64_t ino = parseDec(ext);
      c.external[c.external_count++] = {dev, ino};
      if (*ext == ',')
        ++ext;
      else
        break;
    }
  }
  if (self_path) appendStr(c.self_path, 0, sizeof(c.self_path), self_path);
  // Remember radar's variables, to put them back into scrubbed environments.
  for (char* const* e = envp; e && *e && c.var_count < Config::kMaxVars; ++e)
    if (log::isRecorderVariable(*e) && !startsWith(*e, "RADAR_LINK=") && std::strlen(*e) < sizeof(c.vars[0]))
      std::strcpy(c.vars[c.var_count++], *e);
  c.enabled = true;
}

Link parseLink(char* const* envp) {
  Link l;
  log::Origin* origin = &l.origin;
  uint64_t* parent_log = &l.parent_log;
  uint64_t* counter = &l.counter;
  uint32_t* gen = &l.generation;
  const char* link = findEnv(envp, "RADAR_LINK");
  if (!link) return l;
  const char* colon = std::strchr(link, ':');
  const size_t kind_len = colon ? static_cast<size_t>(colon - link) : std::strlen(link);
  auto is = [&](const char* s) { return std::strlen(s) == kind_len && std::strncmp(link, s, kind_len) == 0; };
  if (is("root"))
    *origin = log::Origin::Root;
  else if (is("exec"))
    *origin = log::Origin::Execed;
  else if (is("vfork"))
    *origin = log::Origin::Vforked;
  else if (is("spawn"))
    *origin = log::Origin::Spawned;
  if (!colon) return l;
  const char* p = colon + 1;
  *parent_log = sys::parseHex(p);
  if (*p == ':') ++p;
  *counter = parseDec(p);
  if (*p == ':') ++p;
  *gen = static_cast<uint32_t>(parseDec(p));
  return l;
}

void formatLink(char* buf, size_t size, const char* origin, uint64_t log_id, uint64_t counter, uint32_t gen) {
  size_t at = appendStr(buf, 0, size, "RADAR_LINK=");
  at = appendStr(buf, at, size, origin);
  at = appendStr(buf, at, size, ":");
  at = appendHex(buf, at, size, log_id);
  at = appendStr(buf, at, size, ":");
  at = appendDec(buf, at, size, counter);
  at = appendStr(buf, at, size, ":");
  appendDec(buf, at, size, gen);
}

bool buildExecEnvironment(const Config& config, char* const* envp, const char* link, char** out, size_t capacity,
                          EnvScratch* scratch) {
  char(&preload)[sizeof(scratch->preload)] = scratch->preload;
  size_t n = 0;
  bool have_preload = false;
  bool have_var[Config::kMaxVars] = {};
  for (char* const* e = envp; e && *e; ++e) {
    if (startsWith(*e, "RADAR_LINK=")) continue;
    if (n + Config::kMaxVars + 3 >= capacity) return false;
    if (startsWith(*e, "LD_PRELOAD=")) {
      have_preload = true;
      if (config.self_path[0] && !std::strstr(*e, config.self_path)) {
        // The program set its own LD_PRELOAD: keep it, after ours, but for
        // sanitizer runtimes, which must come first (see radar record).
        size_t at = appendStr(preload, 0, sizeof(preload), "LD_PRELOAD=");
        for (int sanitizers = 1; sanitizers >= 0; --sanitizers) {
          if (!sanitizers) {
            at = appendStr(preload, at, sizeof(preload), config.self_path);
            at = appendStr(preload, at, sizeof(preload), ":");
          }
          log::forEachPreloadEntry(*e + 11, [&](const char* entry, size_t len) {
            if (log::isSanitizerRuntime(entry, len) == (sanitizers == 1) && at + len + 2 < sizeof(preload)) {
              std::memcpy(preload + at, entry, len);
              at += len;
              preload[at++] = ':';
              preload[at] = 0;
            }
          });
        }
        if (at && preload[at - 1] == ':') preload[--at] = 0;
        out[n++] = preload;
        continue;
      }
    }
    for (int v = 0; v < config.var_count; ++v) {
      const char* eq = std::strchr(config.vars[v], '=');
      if (eq && std::strncmp(*e, config.vars[v], static_cast<size_t>(eq - config.vars[v]) + 1) == 0) have_var[v] = true;
    }
    out[n++] = *e;
  }
  if (!have_preload && config.self_path[0]) {
    size_t at = appendStr(preload, 0, sizeof(preload), "LD_PRELOAD=");
    appendStr(preload, at, sizeof(preload), config.self_path);
    out[n++] = preload;
  }
  for (int v = 0; v < config.var_count; ++v)
    if (!have_var[v]) out[n++] = const_cast<char*>(config.vars[v]);  // exec does not write them
  if (link) out[n++] = const_cast<char*>(link);
  out[n] = nullptr;
  return true;
}

bool buildBareEnvironment(const Config& config, char* const* envp, char** out, size_t capacity, EnvScratch* scratch) {
  char(&preload)[sizeof(scratch->preload)] = scratch->preload;
  const char* self = config.self_path;
  const size_t self_len = std::strlen(self);
  size_t n = 0;
  for (char* const* e = envp; e && *e; ++e) {
    if (n + 1 >= capacity) return false;
    if (log::isRecorderVariable(*e)) continue;
    if (startsWith(*e, "ASAN_OPTIONS=")) {
      // radar record's addition (see radarlog/log/asan_options.h) taken out.
      char(&asan)[sizeof(scratch->asan)] = scratch->asan;
      const size_t len = std::strlen(*e), ours = sizeof(log::kAsanLinkOrder) - 1;
      if (std::strcmp(*e + 13, log::kAsanLinkOrder) == 0) continue;
      if (len > 13 + ours + 1 && len < sizeof(asan) && std::strcmp(*e + len - ours, log::kAsanLinkOrder) == 0 &&
          (*e)[len - ours - 1] == ':') {
        std::memcpy(asan, *e, len - ours - 1);
        asan[len - ours - 1] = 0;
        out[n++] = asan;
        continue;
      }
    }
    if (self_len && startsWith(*e, "LD_PRELOAD=")) {
      // Every entry but ours, in order.
      size_t at = appendStr(preload, 0, sizeof(preload), "LD_PRELOAD=");
      const size_t start = at;
      log::forEachPreloadEntry(*e + 11, [&](const char* entry, size_t len) {
        const bool ours = len == self_len && std::strncmp(entry, self, len) == 0;
        if (!ours && at + len + 2 < sizeof(preload)) {
          if (at > start) preload[at++] = ':';
          std::memcpy(preload + at, entry, len);
          at += len;
          preload[at] = 0;
        }
      });
      if (at > start) out[n++] = preload;
      continue;
    }
    out[n++] = *e;
  }
  out[n] = nullptr;
  return true;
}

}  // namespace radar::preload
