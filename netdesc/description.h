// A network description (proto/netdesc.proto), parsed from its text and
// checked: every name it uses exists, ports connect outputs to inputs, the
// templates are sound, the protobuf types are found. Every problem names
// the file, the line and the column, says what was expected and, where it
// can, suggests the fix.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "radar/proto/netdesc.pb.h"

namespace google::protobuf {
class Descriptor;
class DescriptorPool;
class DynamicMessageFactory;
namespace compiler {
class Importer;
class DiskSourceTree;
}  // namespace compiler
}  // namespace google::protobuf

namespace radar::netdesc {

struct Problem {
  std::string file;
  int line = 0;    // 1-based; 0 when the problem is the file's as a whole
  int column = 0;  // 1-based
  std::string message;
  // "file:line:column: message"
  std::string toString() const;
};

class Description {
 public:
  // Reads and checks a description file. Null, with *problems, when it
  // cannot be used.
  static std::unique_ptr<Description> load(const std::string& path, std::vector<Problem>* problems);
  // The same from text; `path` names it in problems and its directory
  // anchors relative paths (proto files, commands).
  static std::unique_ptr<Description> parse(const std::string& text, const std::string& path,
                                            std::vector<Problem>* problems);
  ~Description();

  const Network& network() const { return network_; }
  const std::string& path() const { return path_; }
  const std::string& text() const { return text_; }
  std::string directory() const;

  const Process* process(const std::string& name) const;
  const Port* port(const Process& process, const std::string& name) const;
  const Type* type(const std::string& name) const;
  // The protobuf message type a Type names (null for other types).
  const google::protobuf::Descriptor* protobufType(const Type& type) const;
  google::protobuf::DynamicMessageFactory& messageFactory() const { return *factory_; }

 private:
  Description();
  class Checker;  // description.cc
  bool check(const std::string& text, std::vector<Problem>* problems);

  Network network_;
  std::string path_, text_;
  std::unique_ptr<google::protobuf::compiler::DiskSourceTree> sources_;
  std::unique_ptr<google::protobuf::compiler::Importer> importer_;
  std::unique_ptr<google::protobuf::DynamicMessageFactory> factory_;
};

// The names among `candidates` nearest to `name` (typos: edit distance),
// best first, at most three.
std::vector<std::string> nearestNames(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace radar::netdesc
