// Network descriptions on real recordings: radar run starting the RADAR
// report's networks (Figure 4, Appendix C), --net naming and decoding a
// recording, what matched nothing, the skeleton, bad input.
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <memory>

#include "binding/binding.h"
#include "netdesc/plan.h"
#include "recorded.h"
#include "trace/merge.h"

namespace radar::testing {
namespace {

std::string bin(const std::string& name) { return std::string(RADAR_BIN_DIR) + "/" + name; }

std::string write(const std::string& name, const std::string& text) {
  const std::string path = testTempDir() + "/" + name;
  std::ofstream(path) << text;
  return path;
}

struct Applied {
  std::unique_ptr<trace::Trace> trace;
  std::unique_ptr<netdesc::Binding> net;
  std::vector<std::string> unmatched;
};

// Loads a recording and applies `net` (empty: the one it carries).
Applied applied(const std::string& dir, const std::string& net = "") {
  Applied a;
  std::string error;
  a.trace = trace::loadTrace({dir}, trace::LoadOptions{}, &error);
  EXPECT_TRUE(a.trace) << error;
  if (!a.trace) return a;
  a.net = netdesc::Binding::forRecording(*a.trace, net, true, &a.unmatched, &error);
  EXPECT_TRUE(a.net) << error;
  if (a.net) a.trace->described = a.net->names();
  return a;
}

// The processes by name (each must be one image), the channels by name.
std::map<std::string, uint32_t> processesByName(const trace::Trace& t) {
  std::map<std::string, uint32_t> out;
  for (const auto& p : t.processes) {
    if (p.event_count == 0) continue;
    const std::string& name = t.processName(p.index);
    EXPECT_TRUE(out.emplace(name, p.index).second || name == "radar-network") << "two images named " << name;
  }
  return out;
}

// Which processes hold an end of channel `name`, writing or reading.
std::multimap<std::string, std::string> endsOf(const trace::Trace& t, const std::string& name) {
  std::multimap<std::string, std::string> out;
  for (const auto& c : t.channels) {
    if (t.channelName(c.index) != name) continue;
    for (uint32_t e : c.endpoints) {
      const auto& ep = t.endpoints[e];
      const std::string& who = t.processName(ep.process);
      if (who == "radar-network" || who == "static_net") continue;  // the launchers made them
      out.emplace(t.processName(ep.process), ep.access == 1 /* O_WRONLY */ ? "write" : "read");
    }
  }
  return out;
}

// The decoded contents of the first send of `process`.
std::string firstSendOf(const Applied& a, const std::string& process) {
  const auto& t = *a.trace;
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    if (t.processName(t.events[i].process) != process) continue;
    if (log::categoryOf(t.events[i].eventKind()) != log::Category::Send) continue;
    std::string out, error;
    EXPECT_TRUE(a.net->describeContents(t, i, &out, &error)) << error;
    return out;
  }
  ADD_FAILURE() << process << " sent nothing";
  return "";
}

// Figure 4: two senders share one pipe into proc3 (many-to-one); proc3's
// output reaches both (one-to-many).
TEST(Run, Figure4NetworkIsStartedConnectedAndNamed) {
  const std::string dir = testTempDir() + "/rec";
  Result r = radar({"run", "-o", dir, bin("static_net.netdesc")});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("proc3: proc1 sent 11 12 13, answered 121 144 169"), std::string::npos) << r.out;
  Applied a = applied(dir);
  ASSERT_TRUE(a.net);
  EXPECT_TRUE(a.unmatched.empty()) << a.unmatched[0];
  const auto& t = *a.trace;
  const auto names = processesByName(t);
  for (const char* p : {"proc1", "proc2", "proc3"}) EXPECT_TRUE(names.count(p)) << p;
  EXPECT_EQ(endsOf(t, "requests"),
            (std::multimap<std::string, std::string>{{"proc1", "write"}, {"proc2", "write"}, {"proc3", "read"}}));
  EXPECT_EQ(endsOf(t, "proc3.OUTPUT -> proc1.INPUT"),
            (std::multimap<std::string, std::string>{{"proc1", "read"}, {"proc3", "write"}}));
  EXPECT_EQ(endsOf(t, "proc3.OUTPUT -> proc2.INPUT"),
            (std::multimap<std::string, std::string>{{"proc2", "read"}, {"proc3", "write"}}));
  EXPECT_EQ(t.bytes_matched, t.bytes_sent);
  EXPECT_EQ(t.bytes_sent, 6 * 8 + 12 * 8u);  // 6 requests, each reply to both
  const std::string request = firstSendOf(a, "proc1");
  EXPECT_NE(request.find("Request\n  from = 1\n  value = 11"), std::string::npos) << request;
  const std::string reply = firstSendOf(a, "proc3");
  EXPECT_NE(reply.find("Reply\n  to = "), std::string::npos) << reply;

  // The narrative speaks the description's names too.
  Result events = radar({"events", dir, "-k", "message", "--decode"});
  EXPECT_EQ(events.exit_code, 0) << events.err;
  EXPECT_NE(events.out.find("sends a message to proc3["), std::string::npos) << events.out;
  EXPECT_NE(events.out.find(" on requests (8 bytes)"), std::string::npos) << events.out;
  EXPECT_NE(events.out.find("      value = 121"), std::string::npos) << events.out;
  // --no-net: the recording as recorded.
  Result plain = radar({"events", dir, "--no-net", "-k", "message"});
  EXPECT_EQ(plain.out.find(" on requests"), std::string::npos);
  EXPECT_NE(plain.out.find(" on pipe "), std::string::npos) << plain.out;
}

// Appendix C: one sender, its output replicated to two receivers; the
// sender reads radar run's standard input.
TEST(Run, AppendixCBroadcastNetwork) {
  const std::string dir = testTempDir() + "/rec";
  Result r = radar({"run", "-o", dir, bin("broadcast.netdesc")}, "5\n7\n999\n");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* line : {"receiver1: 5", "receiver1: 7", "receiver2: 5", "receiver2: 7"})
    EXPECT_NE(r.out.find(line), std::string::npos) << line << " in\n" << r.out;
  Applied a = applied(dir);
  ASSERT_TRUE(a.net);
  EXPECT_TRUE(a.unmatched.empty()) << a.unmatched[0];
  const auto& t = *a.trace;
  const auto names = processesByName(t);
  for (const char* p : {"sender", "receiver1", "receiver2"}) EXPECT_TRUE(names.count(p)) << p;
  // One connection, a pipe to each receiver, both named after it.
  EXPECT_EQ(endsOf(t, "numbers"),
            (std::multimap<std::string, std::string>{
                {"receiver1", "read"}, {"receiver2", "read"}, {"sender", "write"}, {"sender", "write"}}));
  // Each receiver got 5, 7 and 999, decoded as Numbers.
  std::map<std::string, std::string> got;
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    if (log::categoryOf(t.events[i].eventKind()) != log::Category::Receive) continue;
    const std::string who = t.processName(t.events[i].process);
    if (who.rfind("receiver", 0) != 0) continue;
    std::string out, error;
    ASSERT_TRUE(a.net->describeContents(t, i, &out, &error)) << error;
    got[who] += out;
  }
  for (const char* receiver : {"receiver1", "receiver2"})
    EXPECT_EQ(got[receiver], "Number\n  value = 5\nNumber\n  value = 7\nNumber\n  value = 999\n") << receiver;
}

TEST(Run, ExitStatusIsTheFirstFailure) {
  const std::string net = write("fails.netdesc", R"(
    process { name: "fine" start { command: "true" } }
    process { name: "broken" start { command: "sh" arg: "-c" arg: "sleep 0.2; exit 3" } }
    process { name: "later" start { command: "sh" arg: "-c" arg: "sleep 0.6; exit 4" } }
  )");
  Result r = radar({"run", "-o", testTempDir() + "/rec", net});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  EXPECT_NE(r.err.find("radar run: broken exited with status 3"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("radar run: later exited with status 4"), std::string::npos) << r.err;
}

TEST(Run, BadInputGetsAClearMessage) {
  Result none = radar({"run"});
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no network description given"), std::string::npos) << none.err;

  const std::string typo = write("typo.netdesc", "process {\n  name: \"a\"\n  strat { command: \"true\" }\n}\n");
  Result t = radar({"run", "-o", testTempDir() + "/rec", typo});
  EXPECT_EQ(t.exit_code, 2);
  EXPECT_NE(t.err.find(typo + ":3:3:"), std::string::npos) << t.err;

  const std::string missing =
      write("missing.netdesc", R"(process { name: "a" start { command: "no-such-program-xyz" } })");
  Result m = radar({"run", "-o", testTempDir() + "/rec", missing});
  EXPECT_EQ(m.exit_code, 2);
  EXPECT_NE(m.err.find("process 'a': command 'no-such-program-xyz' not found"), std::string::npos) << m.err;

  const std::string no_start = write("nostart.netdesc", R"(process { name: "a" })");
  Result s = radar({"run", "-o", testTempDir() + "/rec", no_start});
  EXPECT_EQ(s.exit_code, 2);
  EXPECT_NE(s.err.find("process 'a' has no start"), std::string::npos) << s.err;

  Result rec = radar({"record", "--net", typo, "--", "true"});
  EXPECT_EQ(rec.exit_code, 2);
  EXPECT_NE(rec.err.find(typo + ":3:3:"), std::string::npos) << rec.err;
}

// A recording of the sample's own launcher, named and decoded by the same
// description; radar record --net makes the recording carry it.
TEST(Apply, SampleRecordingNamedAndDecodedByItsDescription) {
  Recording rec = record({bin("static_net")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  Result events = radar({"events", rec.dir, "--net", bin("static_net.netdesc"), "--decode", "-k", "send"});
  EXPECT_EQ(events.exit_code, 0) << events.err;
  EXPECT_EQ(events.err, "");  // everything described matched
  EXPECT_NE(events.out.find("Process proc1["), std::string::npos) << events.out;
  EXPECT_NE(events.out.find("on requests (8 bytes)"), std::string::npos) << events.out;
  EXPECT_NE(events.out.find("    Request\n      from = 1\n      value = 11\n"), std::string::npos) << events.out;

  Result json = radar({"events", rec.dir, "--net", bin("static_net.netdesc"), "--json", "--decode", "-k", "send"});
  EXPECT_NE(json.out.find(R"("channel":"requests")"), std::string::npos) << json.out;
  EXPECT_NE(json.out.find(R"("decoded":"Request\n  from = )"), std::string::npos) << json.out;

  Result stats = radar({"stats", rec.dir, "--net", bin("static_net.netdesc")});
  EXPECT_NE(stats.out.find("requests "), std::string::npos) << stats.out;

  Recording carried = record({bin("static_net")}, {.radar_args = {"--net", bin("static_net.netdesc")}});
  ASSERT_EQ(carried.exit_code, 0) << carried.err;
  EXPECT_FALSE(carried.meta.network().empty());
  EXPECT_EQ(carried.meta.network_file(), bin("static_net.netdesc"));
  Result named = radar({"check", carried.dir});
  EXPECT_EQ(named.exit_code, 0) << named.err;
  Result listed = radar({"events", carried.dir, "-p", "proc3", "-k", "receive"});
  EXPECT_NE(listed.out.find("Process proc3["), std::string::npos) << listed.out;
}

TEST(Apply, WhatMatchesNothingIsReported) {
  Recording rec = record({bin("static_net")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::string net = write("extra.netdesc", R"(
    process { name: "proc1" port { name: "INPUT" direction: IN } port { name: "SPARE" direction: OUT fd: 42 } }
    process { name: "ghost" match { program: "nobody*" } }
    process { name: "proc2" match { order: 3 } }
  )");
  Result r = radar({"check", rec.dir, "--net", net});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("port 'proc1.SPARE' matched no channel end of proc1["), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("(it looks for descriptor 42)"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("process 'ghost' matched no recorded process (it looks for program 'nobody*')"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("process 'proc2' matched no recorded process"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("proc1.INPUT"), std::string::npos) << r.err;  // found through RADAR_PORT_INPUT

  const std::string bad =
      write("bad.netdesc", "process { name: \"p\" port { name: \"x\" direction: IN type: \"Nope\" } }\n");
  Result b = radar({"events", rec.dir, "--net", bad});
  EXPECT_EQ(b.exit_code, 2);
  EXPECT_NE(b.err.find(bad + ":1:"), std::string::npos) << b.err;
  EXPECT_NE(b.err.find("Nope"), std::string::npos) << b.err;
  Result gone = radar({"stats", rec.dir, "--net", "/nonexistent.netdesc"});
  EXPECT_EQ(gone.exit_code, 2);
  EXPECT_NE(gone.err.find("/nonexistent.netdesc"), std::string::npos) << gone.err;
}

// A port given neither a descriptor, a path, a TCP port nor a RADAR_PORT_
// variable is found through its connections: the process's ends of the
// channels the connected ports are on (a server's accepted connections).
TEST(Apply, APortIsFoundThroughItsConnections) {
  Recording rec = record({bin("static_net")});
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  const std::string net = write("through.netdesc", R"(
    process { name: "proc1" port { name: "OUTPUT" direction: OUT } }
    process { name: "proc2" port { name: "OUTPUT" direction: OUT } }
    process { name: "proc3" port { name: "REQUESTS" direction: IN } port { name: "NOWHERE" direction: IN } }
    connect { from: "proc1.OUTPUT" to: "proc3.REQUESTS" name: "asks" }
    connect { from: "proc2.OUTPUT" to: "proc3.REQUESTS" name: "asks" }
  )");
  Applied a = applied(rec.dir, net);
  ASSERT_TRUE(a.net);
  ASSERT_EQ(a.unmatched.size(), 1u);
  EXPECT_NE(a.unmatched[0].find("port 'proc3.NOWHERE' matched no channel end of proc3["), std::string::npos)
      << a.unmatched[0];
  EXPECT_EQ(endsOf(*a.trace, "asks"),
            (std::multimap<std::string, std::string>{{"proc1", "write"}, {"proc2", "write"}, {"proc3", "read"}}));
}

// radar netdesc writes a description that reads back and matches the
// recording it came from, with every message channel connected.
TEST(Skeleton, DescribesTheRecordingItCameFrom) {
  for (const std::vector<std::string>& command :
       {std::vector<std::string>{bin("static_net")}, {bin("broadcast")}, {bin("mpx"), "3", "5"}}) {
    SCOPED_TRACE(command[0]);
    Recording rec = record(command, {.input = "1\n2\n999\n"});
    ASSERT_EQ(rec.exit_code, 0) << rec.err;
    const std::string file = testTempDir() + "/skeleton.netdesc";
    Result r = radar({"netdesc", rec.dir, "-o", file});
    ASSERT_EQ(r.exit_code, 0) << r.err;
    Applied a = applied(rec.dir, file);
    ASSERT_TRUE(a.net);
    EXPECT_TRUE(a.unmatched.empty()) << a.unmatched[0] << "\n" << slurp(file);
    EXPECT_GT(a.net->description().network().connect_size(), 0) << slurp(file);
    // Every channel between two described processes is named by its ports.
    for (const auto& c : a.trace->channels) {
      bool sent = false;
      for (uint32_t e : c.endpoints) sent |= a.net->portOf(e) != nullptr;
      if (sent && !c.external) {
        const std::string& name = a.trace->channelName(c.index);
        EXPECT_NE(name.find('.'), std::string::npos) << name << "\n" << slurp(file);
      }
    }
  }
  Result none = radar({"netdesc"});
  EXPECT_EQ(none.exit_code, 2);
}

TEST(Plan, ReadsBackWhatItWrites) {
  netdesc::Plan plan;
  plan.channels = {{"0", false}, {"1", true}};
  netdesc::PlanProcess p;
  p.name = "a b";
  p.executable = "/bin/x:y";
  p.argv0 = "a";
  p.stdin_null = true;
  p.args = {"", "two words", std::string("nul\0inside", 10), "12:34 "};
  p.env = {"X=1"};
  p.ports = {{"OUT", {"0w", "1a"}}};
  plan.processes = {p};
  netdesc::Plan back;
  std::string error;
  ASSERT_TRUE(netdesc::readPlan(netdesc::writePlan(plan), &back, &error)) << error;
  ASSERT_EQ(back.processes.size(), 1u);
  EXPECT_EQ(back.processes[0].args, p.args);
  EXPECT_EQ(back.processes[0].ports[0].ends, p.ports[0].ends);
  EXPECT_TRUE(back.processes[0].stdin_null);
  EXPECT_TRUE(back.channels[1].socketpair);
  for (const char* bad : {"7:channel", "x:y", "3:arg 1:a", "7:channel 1:0 4:tube", "99999999999:x"}) {
    netdesc::Plan junk;
    EXPECT_FALSE(netdesc::readPlan(bad, &junk, &error)) << bad;
    EXPECT_FALSE(error.empty());
  }
}

}  // namespace
}  // namespace radar::testing
