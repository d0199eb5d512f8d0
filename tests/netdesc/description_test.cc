// Network descriptions: every construct parses, and every kind of mistake
// gets a message at its line and column, with a suggestion where one helps.
#include <gtest/gtest.h>

#include <google/protobuf/descriptor.h>

#include "netdesc/description.h"

namespace radar::netdesc {
namespace {

// A description with every construct of the format.
const char kEverything[] = R"(name: "everything"
proto_file: "data/shapes.proto"
process {
  name: "server"
  match { program: "srv*" executable: "/usr/*/server" arg: "--port" arg: "[0-9]*" order: 2 }
  start { command: "server" arg: "--port" arg: "80" argv0: "srv" env: "MODE=fast" stdin: NULL_DEVICE }
  port { name: "REQUESTS" direction: IN type: "Request" framing { length_prefix { bytes: 2 order: BIG } } }
  port { name: "REPLIES" direction: OUT type: "Shape" framing { length_prefix { bytes: 4 includes_prefix: true } } }
  port { name: "LOG" direction: OUT fd: 2 type: "Line" framing { newline: true } }
  port { name: "CONTROL" direction: INOUT path: "/tmp/ctl*" framing { fixed_size: 16 } }
  port { name: "HTTP" direction: IN tcp_port: 8080 framing { as_sent: true } }
}
process {
  name: "client"
  port { name: "OUT" direction: OUT type: "Request" }
  port { name: "IN" direction: IN }
  port { name: "CONTROL" direction: INOUT }
}
process { name: "monitor" port { name: "IN" direction: IN } }
connect { from: "client.OUT" to: "server.REQUESTS" name: "requests" }
connect { from: "server.REPLIES" to: "client.IN" to: "monitor.IN" }
connect { from: "server.LOG" to: "monitor.IN" }
connect { from: "client.CONTROL" to: "server.CONTROL" }
type {
  name: "Request"
  template {
    order: BIG
    field { name: "u8" scalar: U8 } field { name: "u16" scalar: U16 } field { name: "u32" scalar: U32 }
    field { name: "u64" scalar: U64 } field { name: "i8" scalar: I8 } field { name: "i16" scalar: I16 }
    field { name: "i32" scalar: I32 } field { name: "i64" scalar: I64 } field { name: "f32" scalar: F32 }
    field { name: "f64" scalar: F64 } field { name: "name" chars: 8 } field { name: "at" record: "Point" count: 2 }
    field { name: "flags" scalar: U8 count: 4 }
  }
}
type { name: "Point" template { field { name: "x" scalar: I32 } field { name: "y" scalar: I32 } } }
type { name: "Shape" protobuf: "shapes.Polygon" }
type { name: "Line" text {} }
)";

std::string path() { return std::string(RADAR_TEST_DATA) + "/../everything.netdesc"; }

std::vector<Problem> problemsOf(const std::string& text) {
  std::vector<Problem> problems;
  auto d = Description::parse(text, path(), &problems);
  EXPECT_EQ(d == nullptr, !problems.empty());
  return problems;
}

// The one problem of `text`: its line, column and words.
void expectProblem(const std::string& text, int line, int column, const std::string& says) {
  const auto problems = problemsOf(text);
  ASSERT_EQ(problems.size(), 1u) << (problems.empty() ? std::string("none") : problems[1].toString());
  SCOPED_TRACE(problems[0].toString());
  EXPECT_EQ(problems[0].line, line) << problems[0].toString();
  EXPECT_EQ(problems[0].column, column) << problems[0].toString();
  EXPECT_NE(problems[0].message.find(says), std::string::npos) << problems[0].toString();
  EXPECT_EQ(problems[0].toString().rfind(path() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ", 0),
            0u);
}

TEST(Description, EveryConstructParses) {
  std::vector<Problem> problems;
  auto d = Description::parse(kEverything, path(), &problems);
  ASSERT_TRUE(d) << problems.at(0).toString();
  const Network& n = d->network();
  EXPECT_EQ(n.process_size(), 3);
  const Process* server = d->process("server");
  ASSERT_TRUE(server);
  EXPECT_EQ(server->match().order(), 2u);
  EXPECT_EQ(server->start().stdin(), NULL_DEVICE);
  EXPECT_EQ(d->port(*server, "REQUESTS")->framing().length_prefix().order(), BIG);
  EXPECT_EQ(d->port(*server, "LOG")->fd(), 2);
  EXPECT_TRUE(d->port(*server, "HTTP")->framing().as_sent());
  EXPECT_FALSE(d->port(*server, "NOPE"));
  EXPECT_EQ(n.connect(1).to_size(), 2);  // one-to-many
  ASSERT_TRUE(d->type("Shape"));
  const auto* polygon = d->protobufType(*d->type("Shape"));
  ASSERT_TRUE(polygon);
  EXPECT_EQ(polygon->full_name(), "shapes.Polygon");
  EXPECT_EQ(d->type("Request")->template_().field_size(), 13);
  EXPECT_EQ(d->directory(), std::string(RADAR_TEST_DATA) + "/..");
}

TEST(Description, SyntaxErrorsHaveTheirPlace) {
  expectProblem("process {\n  name: \"a\"\n  port { name: \"x\" direction: IN\n}\n", 5, 1, "");
  expectProblem("process {\n  name: \"a\"\n  port { name: \"x\" directoin: IN }\n}\n", 3, 20,
                "did you mean 'direction'?");
  expectProblem("type { name: \"T\" template { field { name: \"f\" scalar: U33 } } }\n", 1, 59,
                "unknown scalar 'U33'; did you mean");
  expectProblem("process { name: \"a\" port { name: \"x\" direction: SIDEWAYS } }\n", 1, 58, "unknown direction");
}

TEST(Description, UnknownNamesSuggestTheNearest) {
  const std::string types =
      "type { name: \"TokenClasses\" template { field { name: \"n\" scalar: U32 } } }\n"
      "type { name: \"TokenValues\" template { field { name: \"n\" scalar: U32 } } }\n";
  expectProblem(types + "process { name: \"parser\" port { name: \"IN\" direction: IN type: \"TokenClass\" } }\n", 3,
                58, "unknown type 'TokenClass'; did you mean 'TokenClasses'");
  expectProblem(types + "type { name: \"Both\" template { field { name: \"v\" record: \"TokenValue\" } } }\n", 3, 50,
                "unknown type 'TokenValue'; did you mean 'TokenValues'");
  const std::string procs =
      "process { name: \"scanner\" port { name: \"CLASSES\" direction: OUT } }\n"
      "process { name: \"parser\" port { name: \"CLASSES\" direction: IN } }\n";
  expectProblem(procs + "connect { from: \"scaner.CLASSES\" to: \"parser.CLASSES\" }\n", 3, 11,
                "unknown process 'scaner'; did you mean 'scanner'");
  expectProblem(procs + "connect { from: \"scanner.CLASES\" to: \"parser.CLASSES\" }\n", 3, 11,
                "has no port 'CLASES'; did you mean 'CLASSES'");
  expectProblem(procs + "connect { from: \"scanner.CLASSES\" to: \"parser.VALUES\" }\n", 3, 35,
                "has no port 'VALUES'; the ports of parser are: CLASSES");
  expectProblem(procs + "connect { from: \"scanner\" to: \"parser.CLASSES\" }\n", 3, 11, "expected process.port");
}

TEST(Description, ConnectionsGoFromOutputsToInputs) {
  const std::string procs =
      "process { name: \"a\" port { name: \"OUT\" direction: OUT } port { name: \"IN\" direction: IN }"
      " port { name: \"IO\" direction: INOUT } }\n"
      "process { name: \"b\" port { name: \"OUT\" direction: OUT } port { name: \"IN\" direction: IN }"
      " port { name: \"IO\" direction: INOUT } }\n";
  expectProblem(procs + "connect { from: \"a.OUT\" to: \"b.OUT\" }\n", 3, 25, "are both outputs");
  expectProblem(procs + "connect { from: \"a.IN\" to: \"b.IN\" }\n", 3, 11, "is an input port");
  expectProblem(procs + "connect { from: \"a.IO\" to: \"b.IN\" }\n", 3, 24, "an INOUT port connects to an INOUT port");
  expectProblem(procs + "connect { from: \"a.OUT\" }\n", 3, 11, "goes nowhere");
  EXPECT_TRUE(problemsOf(procs + "connect { from: \"a.IO\" to: \"b.IO\" }\n").empty());
}

TEST(Description, EveryOtherMistakeIsNamed) {
  expectProblem("process { name: \"a\" }\nprocess { name: \"a\" }\n", 2, 11, "described twice");
  expectProblem("process { name: \"a.b\" }\n", 1, 11, "no dots or spaces");
  expectProblem("process { name: \"a\" port { name: \"p\" } }\n", 1, 28, "needs a direction");
  expectProblem("process { name: \"a\" port { name: \"p\" direction: IN fd: 3 path: \"/x\" } }\n", 1, 28,
                "more than one way");
  expectProblem("process { name: \"a\" port { name: \"p\" direction: IN } port { name: \"p\" direction: OUT } }\n", 1,
                61, "appears twice");
  expectProblem("process { name: \"a\" start { arg: \"x\" } }\n", 1, 21, "needs a command");
  expectProblem("process { name: \"a\" position { column: -1 row: 2 } }\n", 1, 32,
                "column -1.000000: expected 0 to 1000");
  expectProblem("process { name: \"a\" position { column: 1 row: 2000 } }\n", 1, 42,
                "row 2000.000000: expected 0 to 1000");
  expectProblem("process { name: \"a\" start { command: \"x\" env: \"NOVALUE\" } }\n", 1, 42, "expected NAME=VALUE");
  expectProblem("process { name: \"a\" port { name: \"p\" direction: IN framing { length_prefix { bytes: 3 } } } }\n",
                1, 78, "1, 2, 4 or 8 bytes, not 3");
  expectProblem("process { name: \"a\" port { name: \"p\" direction: IN framing { fixed_size: 0 } } }\n", 1, 62,
                "at least 1");
  expectProblem("pattern { step: \"x\" }\n", 1, 1, "a pattern needs a name");
  expectProblem("pattern { name: \"p\" }\n", 1, 11, "has no step");
  expectProblem("pattern { name: \"p\" step: \"\" }\n", 1, 21, "an empty step");
  expectProblem("pattern { name: \"p\" step: \"x\" }\npattern { name: \"p\" step: \"y\" }\n", 2, 11, "described twice");
  EXPECT_TRUE(problemsOf("pattern { name: \"p\" process: \"a\" step: \"x\" }\n"
                         "pattern { name: \"p\" process: \"b\" step: \"x\" }\n")
                  .empty());
  expectProblem("type { name: \"T\" }\n", 1, 8, "says neither how it decodes");
  expectProblem("type { name: \"T\" template { } }\n", 1, 18, "has no field");
  expectProblem("type { name: \"T\" template { field { name: \"f\" } } }\n", 1, 37, "needs exactly one of");
  expectProblem("type { name: \"T\" template { field { name: \"f\" scalar: U8 chars: 4 } } }\n", 1, 37, "(it has 2)");
  expectProblem("type { name: \"T\" template { field { name: \"f\" scalar: U8 } field { name: \"f\" scalar: U8 } } }\n",
                1, 68, "appears twice");
  expectProblem("type { name: \"T\" text {} }\ntype { name: \"T\" text {} }\n", 2, 8, "described twice");
  expectProblem("type { name: \"L\" text {} }\ntype { name: \"T\" template { field { name: \"f\" record: \"L\" } } }\n",
                2, 47, "is not a template");
  expectProblem(
      "type { name: \"A\" template { field { name: \"b\" record: \"B\" } } }\n"
      "type { name: \"B\" template { field { name: \"a\" record: \"A\" } } }\n",
      1, 8, "contains itself: A -> B -> A");
  expectProblem("type { name: \"S\" protobuf: \"shapes.Polygon\" }\n", 1, 18, "no proto_file is given");
  expectProblem("proto_file: \"data/shapes.proto\"\ntype { name: \"S\" protobuf: \"shapes.Polygn\" }\n", 2, 18,
                "did you mean 'shapes.Polygon'");
  const auto missing = problemsOf("proto_file: \"data/nothing.proto\"\n");
  ASSERT_FALSE(missing.empty());
  EXPECT_NE(missing[0].toString().find("nothing.proto"), std::string::npos) << missing[0].toString();
}

TEST(Description, AMissingFileSaysSo) {
  std::vector<Problem> problems;
  EXPECT_FALSE(Description::load("/nonexistent/x.netdesc", &problems));
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_EQ(problems[0].toString(), "/nonexistent/x.netdesc: cannot be read");
}

TEST(Description, NearestNames) {
  EXPECT_EQ(nearestNames("TokenClass", {"TokenClasses", "TokenValues", "Syntax"}),
            std::vector<std::string>{"TokenClasses"});
  EXPECT_EQ(nearestNames("synTAX", {"TokenClasses", "Syntax"}), std::vector<std::string>{"Syntax"});
  EXPECT_TRUE(nearestNames("zzzzzz", {"TokenClasses", "Syntax"}).empty());
}

}  // namespace
}  // namespace radar::netdesc
