// libFuzzer target for network descriptions: any text, parsed and checked
// as a description, and any bytes decoded as every kind of message type
// under every framing, must give a result or a clean problem; never a
// crash, a hang or a sanitizer report.
//
// Input: a first byte says what to do (even: parse the rest as a
// description; odd: decode the rest with the type and framing it picks).
#include <cstdint>
#include <memory>
#include <string>

#include "netdesc/decode.h"
#include "netdesc/description.h"

namespace {

using namespace radar::netdesc;

const char kTypes[] = R"(
proto_file: "shapes.proto"
process {
  name: "p"
  port { name: "A" direction: OUT type: "Scalars" framing { length_prefix { bytes: 1 } } }
  port { name: "B" direction: OUT type: "Nested" framing { length_prefix { bytes: 2 order: BIG } } }
  port { name: "C" direction: OUT type: "Shape" framing { length_prefix { bytes: 4 includes_prefix: true } } }
  port { name: "D" direction: OUT type: "Line" framing { newline: true } }
  port { name: "E" direction: OUT type: "Scalars" framing { fixed_size: 7 } }
  port { name: "F" direction: OUT type: "Nested" framing { length_prefix { bytes: 8 } } }
  port { name: "G" direction: OUT }
}
type { name: "Scalars" template { order: BIG
  field { name: "a" scalar: U8 } field { name: "b" scalar: I16 } field { name: "c" scalar: F32 }
  field { name: "d" scalar: F64 count: 3 } field { name: "e" chars: 5 count: 2 } } }
type { name: "Point" template { field { name: "x" scalar: I64 } field { name: "y" scalar: U32 } } }
type { name: "Nested" template { field { name: "n" scalar: U16 } field { name: "p" record: "Point" count: 4 } } }
type { name: "Shape" protobuf: "shapes.Polygon" }
type { name: "Line" text {} }
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::unique_ptr<Description> described = [] {
    std::vector<Problem> problems;
    auto d = Description::parse(kTypes, std::string(RADAR_FUZZ_DATA) + "/x.netdesc", &problems);
    if (!d) __builtin_trap();  // the fixed description must be valid
    return d;
  }();
  if (size == 0) return 0;
  const std::string rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  if (data[0] % 2 == 0) {
    std::vector<Problem> problems;
    auto d = Description::parse(rest, std::string(RADAR_FUZZ_DATA) + "/fuzzed.netdesc", &problems);
    for (const auto& p : problems) (void)p.toString();
    if (d)
      for (const auto& t : d->network().type()) (void)decodeMessage(d.get(), &t, rest).toString();
    return 0;
  }
  const auto& ports = described->network().process(0).port();
  const Port& port = ports.Get((data[0] / 2) % ports.size());
  (void)describeBytes(described.get(), &port, rest);
  (void)decodeMessage(described.get(), nullptr, rest);
  return 0;
}
