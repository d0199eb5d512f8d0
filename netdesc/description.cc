#include "netdesc/description.h"

#include <google/protobuf/compiler/importer.h>
#include <google/protobuf/dynamic_message.h>
#include <google/protobuf/io/tokenizer.h>
#include <google/protobuf/text_format.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>

namespace radar::netdesc {
namespace {

namespace pb = google::protobuf;
using Tree = pb::TextFormat::ParseInfoTree;

std::string directoryOf(const std::string& path) {
  const auto slash = path.rfind('/');
  return slash == std::string::npos ? "." : slash == 0 ? "/" : path.substr(0, slash);
}

std::string absoluteIn(const std::string& dir, const std::string& path) {
  return path.empty() || path[0] == '/' ? path : dir + "/" + path;
}

size_t editDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      const bool same =
          std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

std::string oneOf(const std::vector<std::string>& names) {
  std::string s;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i) s += i + 1 == names.size() ? " or " : ", ";
    s += "'" + names[i] + "'";
  }
  return s;
}

// "; did you mean 'a' or 'b'?" or "; known: a, b, c" or "".
std::string suggestion(const std::string& name, const std::vector<std::string>& known, const char* what) {
  const auto near = nearestNames(name, known);
  if (!near.empty()) return "; did you mean " + oneOf(near) + "?";
  if (known.empty()) return std::string("; there are no ") + what;
  std::string list;
  for (size_t i = 0; i < known.size() && i < 8; ++i) list += (i ? ", " : "") + known[i];
  return std::string("; the ") + what + " are: " + list + (known.size() > 8 ? " ..." : "");
}

class Collector : public pb::io::ErrorCollector {
 public:
  Collector(std::string file, const std::string& text, std::vector<Problem>* out)
      : file_(std::move(file)), text_(text), out_(out) {}
  void AddError(int line, pb::io::ColumnNumber column, const std::string& message) override {
    out_->push_back({file_, line + 1, fieldColumn(line, column, message) + 1, explain(message)});
  }
  void AddWarning(int, pb::io::ColumnNumber, const std::string&) override {}

 private:
  // protobuf's messages, with what to do about them.
  static std::string explain(const std::string& message) {
    static const std::map<std::string, std::vector<std::string>> enums = {
        {"scalar", {"U8", "U16", "U32", "U64", "I8", "I16", "I32", "I64", "F32", "F64"}},
        {"direction", {"IN", "OUT", "INOUT"}},
        {"order", {"LITTLE", "BIG"}},
        {"stdin", {"INHERIT", "NULL_DEVICE"}}};
    // Unknown enumeration value of "U33" for field "scalar".
    const std::string prefix = "Unknown enumeration value of \"";
    if (message.rfind(prefix, 0) == 0) {
      const auto end = message.find('"', prefix.size());
      const auto field = message.find("for field \"");
      if (end != std::string::npos && field != std::string::npos) {
        const std::string value = message.substr(prefix.size(), end - prefix.size());
        const std::string name = message.substr(field + 11, message.find('"', field + 11) - field - 11);
        auto it = enums.find(name);
        if (it != enums.end())
          return "unknown " + name + " '" + value + "'" + suggestion(value, it->second, (name + " values").c_str());
      }
    }
    // Message type "radar.netdesc.Port" has no field named "dir".
    const std::string field_prefix = "has no field named \"";
    if (const auto at = message.find(field_prefix); at != std::string::npos) {
      const std::string field = message.substr(at + field_prefix.size(),
                                               message.find('"', at + field_prefix.size()) - at - field_prefix.size());
      const auto type_start = message.find("radar.netdesc.");
      const std::string type = type_start == std::string::npos
                                   ? std::string()
                                   : message.substr(type_start + 14, message.find('"', type_start) - type_start - 14);
      const pb::Descriptor* d = Network::descriptor()->file()->FindMessageTypeByName(type);
      std::vector<std::string> fields;
      for (int i = 0; d && i < d->field_count(); ++i) fields.push_back(d->field(i)->name());
      return (type.empty() ? std::string("no field") : "a " + type + " has no field") + " '" + field + "'" +
             suggestion(field, fields, "fields");
    }
    return message;
  }

  // protobuf places an unknown field's error after its name (at the ':'
  // or '{' that follows): point at the name itself.
  int fieldColumn(int line, int column, const std::string& message) const {
    const std::string prefix = "has no field named \"";
    const auto at = message.find(prefix);
    if (at == std::string::npos || line < 0) return column;
    const std::string field =
        message.substr(at + prefix.size(), message.find('"', at + prefix.size()) - at - prefix.size());
    size_t begin = 0;
    for (int l = 0; l < line && begin != std::string::npos; ++l) {
      begin = text_.find('\n', begin);
      if (begin != std::string::npos) ++begin;
    }
    if (begin == std::string::npos || field.empty()) return column;
    const std::string_view text_line =
        std::string_view(text_).substr(begin, std::min<size_t>(column, text_.size() - begin));
    const auto found = text_line.rfind(field);
    return found == std::string_view::npos ? column : static_cast<int>(found);
  }

  std::string file_;
  const std::string& text_;
  std::vector<Problem>* out_;
};

class ProtoCollector : public pb::compiler::MultiFileErrorCollector {
 public:
  explicit ProtoCollector(std::vector<Problem>* out) : out_(out) {}
  void AddError(const std::string& file, int line, int column, const std::string& message) override {
    out_->push_back({file, line + 1, column + 1, message});
  }

 private:
  std::vector<Problem>* out_;
};

// Where things are in the description's text.
struct Place {
  const Tree* tree;
  const pb::Message* message;
  int line, column;  // of the message itself (1-based)

  // The position of one of its fields (the message's own when unset).
  std::pair<int, int> of(const char* field, int index = -1) const {
    const pb::FieldDescriptor* f = message->GetDescriptor()->FindFieldByName(field);
    if (tree && f) {
      const auto loc = tree->GetLocation(f, f->is_repeated() ? (index < 0 ? 0 : index) : -1);
      if (loc.line >= 0) return {loc.line + 1, loc.column + 1};
    }
    return {line, column};
  }
  // A nested message's place.
  Place nested(const char* field, const pb::Message& child, int index = -1) const {
    const pb::FieldDescriptor* f = message->GetDescriptor()->FindFieldByName(field);
    const Tree* t = tree && f ? tree->GetTreeForNested(f, f->is_repeated() ? index : -1) : nullptr;
    const auto [l, c] = of(field, index);
    return {t, &child, l, c};
  }
};

}  // namespace

std::string Problem::toString() const {
  if (!line) return file + ": " + message;
  return file + ":" + std::to_string(line) + ":" + std::to_string(column) + ": " + message;
}

std::vector<std::string> nearestNames(const std::string& name, const std::vector<std::string>& candidates) {
  std::vector<std::pair<size_t, std::string>> scored;
  const size_t limit = std::max<size_t>(2, name.size() / 3);
  for (const auto& c : candidates) {
    const size_t d = editDistance(name, c);
    const bool prefix = !name.empty() && c.size() > name.size() && c.compare(0, name.size(), name) == 0;
    if (d <= limit || prefix) scored.push_back({prefix ? std::min(d, limit) : d, c});
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::string> out;
  for (const auto& s : scored)
    if (out.size() < 3 && std::find(out.begin(), out.end(), s.second) == out.end()) out.push_back(s.second);
  return out;
}

Description::Description() = default;
Description::~Description() = default;

std::string Description::directory() const { return directoryOf(path_); }

std::unique_ptr<Description> Description::load(const std::string& path, std::vector<Problem>* problems) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    problems->push_back({path, 0, 0, "cannot be read"});
    return nullptr;
  }
  std::stringstream text;
  text << in.rdbuf();
  return parse(text.str(), path, problems);
}

std::unique_ptr<Description> Description::parse(const std::string& text, const std::string& path,
                                                std::vector<Problem>* problems) {
  std::unique_ptr<Description> d(new Description());
  d->path_ = path;
  d->text_ = text;
  if (!d->check(text, problems)) return nullptr;
  return d;
}

const Process* Description::process(const std::string& name) const {
  for (const auto& p : network_.process())
    if (p.name() == name) return &p;
  return nullptr;
}

const Port* Description::port(const Process& process, const std::string& name) const {
  for (const auto& p : process.port())
    if (p.name() == name) return &p;
  return nullptr;
}

const Type* Description::type(const std::string& name) const {
  for (const auto& t : network_.type())
    if (t.name() == name) return &t;
  return nullptr;
}

const pb::Descriptor* Description::protobufType(const Type& type) const {
  if (type.how_case() != Type::kProtobuf || !importer_) return nullptr;
  return importer_->pool()->FindMessageTypeByName(type.protobuf());
}

// A description checked: every mistake said with its place in the text
// and, where a name is unknown, the names it may have meant.
class Description::Checker {
 public:
  Checker(Description& d, const Tree& tree, std::vector<Problem>* problems)
      : d_(d), top_{&tree, &d.network_, 1, 1}, problems_(problems), dir_(d.directory()) {}

  void run() {
    protoFiles();
    typeNames();
    typeBodies();
    templateCycles();
    processes();
    connections();
    patterns();
  }

 private:
  void error(std::pair<int, int> at, std::string message) {
    problems_->push_back({d_.path_, at.first, at.second, std::move(message)});
  }

  // Protobuf message types, from the .proto files given.
  void protoFiles() {
    if (d_.network_.proto_file_size()) {
      d_.sources_ = std::make_unique<pb::compiler::DiskSourceTree>();
      std::set<std::string> mapped;
      auto map = [&](const std::string& d) {
        if (mapped.insert(d).second) d_.sources_->MapPath("", d);
      };
      for (const auto& p : d_.network_.proto_path()) map(absoluteIn(dir_, p));
      for (const auto& f : d_.network_.proto_file()) map(directoryOf(absoluteIn(dir_, f)));
      ProtoCollector proto_errors(problems_);
      d_.importer_ = std::make_unique<pb::compiler::Importer>(d_.sources_.get(), &proto_errors);
      for (int i = 0; i < d_.network_.proto_file_size(); ++i) {
        const std::string file = absoluteIn(dir_, d_.network_.proto_file(i));
        const std::string name = file.substr(file.rfind('/') + 1);
        const size_t errors = problems_->size();
        const pb::FileDescriptor* fd = d_.importer_->Import(name);
        if (!fd) {
          if (problems_->size() == errors) error(top_.of("proto_file", i), "cannot read the proto file '" + file + "'");
          continue;
        }
        std::function<void(const pb::Descriptor*)> add = [&](const pb::Descriptor* m) {
          protobuf_names_.push_back(m->full_name());
          for (int k = 0; k < m->nested_type_count(); ++k) add(m->nested_type(k));
        };
        for (int k = 0; k < fd->message_type_count(); ++k) add(fd->message_type(k));
      }
      d_.factory_ = std::make_unique<pb::DynamicMessageFactory>(d_.importer_->pool());
    }
    if (!d_.factory_) d_.factory_ = std::make_unique<pb::DynamicMessageFactory>();
  }

  // Types: each named once.
  void typeNames() {
    for (int i = 0; i < d_.network_.type_size(); ++i) {
      const Type& t = d_.network_.type(i);
      const Place place = top_.nested("type", t, i);
      if (t.name().empty()) {
        error(place.of("name"), "a type needs a name");
        continue;
      }
      if (!type_index_.emplace(t.name(), i).second) {
        error(place.of("name"), "type '" + t.name() + "' is described twice");
        continue;
      }
      type_names_.push_back(t.name());
      if (t.how_case() == Type::kTemplate) template_names_.push_back(t.name());
    }
  }

  // Types: each says how it decodes.
  void typeBodies() {
    for (int i = 0; i < d_.network_.type_size(); ++i) {
      const Type& t = d_.network_.type(i);
      const Place place = top_.nested("type", t, i);
      switch (t.how_case()) {
        case Type::HOW_NOT_SET:
          error(place.of("name"), "type '" + t.name() +
                                      "' says neither how it decodes: give template { ... }, "
                                      "protobuf: \"package.Message\" or text {}");
          break;
        case Type::kProtobuf:
          if (!d_.importer_) {
            error(place.of("protobuf"), "type '" + t.name() + "' is a protobuf message, but no proto_file is given");
          } else if (!d_.importer_->pool()->FindMessageTypeByName(t.protobuf())) {
            error(place.of("protobuf"), "no protobuf message type '" + t.protobuf() + "' in the proto files" +
                                            suggestion(t.protobuf(), protobuf_names_, "message types"));
          }
          break;
        case Type::kText:
          break;
        case Type::kTemplate:
          checkTemplate(t, place);
          break;
      }
    }
  }

  void checkTemplate(const Type& t, const Place& place) {
    const Place tp = place.nested("template", t.template_());
    std::set<std::string> fields;
    if (t.template_().field_size() == 0) error(tp.of("field"), "template '" + t.name() + "' has no field");
    for (int k = 0; k < t.template_().field_size(); ++k) {
      const Field& f = t.template_().field(k);
      const Place fp = tp.nested("field", f, k);
      if (f.name().empty())
        error(fp.of("name"), "a field needs a name");
      else if (!fields.insert(f.name()).second)
        error(fp.of("name"), "field '" + f.name() + "' appears twice in '" + t.name() + "'");
      const int kinds = (f.scalar() != SCALAR_UNSPECIFIED) + !f.record().empty() + (f.chars() != 0);
      if (kinds != 1) {
        error(fp.of("name"), "field '" + f.name() +
                                 "' needs exactly one of scalar: (U8 ... F64), record: "
                                 "\"Type\" or chars: N" +
                                 (kinds ? " (it has " + std::to_string(kinds) + ")" : ""));
      } else if (!f.record().empty()) {
        auto it = type_index_.find(f.record());
        if (it == type_index_.end())
          error(fp.of("record"),
                "unknown type '" + f.record() + "'" + suggestion(f.record(), template_names_, "templates"));
        else if (d_.network_.type(it->second).how_case() != Type::kTemplate)
          error(fp.of("record"), "'" + f.record() + "' is not a template: a record field names a template type");
      }
    }
  }

  // A template containing itself, through records, would never end.
  void templateCycles() {
    std::map<std::string, int> state;  // 1 visiting, 2 done
    std::function<bool(const std::string&, std::vector<std::string>&)> cyclic = [&](const std::string& name,
                                                                                    std::vector<std::string>& path) {
      auto it = type_index_.find(name);
      if (it == type_index_.end() || d_.network_.type(it->second).how_case() != Type::kTemplate) return false;
      int& s = state[name];
      if (s == 2) return false;
      if (s == 1) return true;
      s = 1;
      path.push_back(name);
      for (const auto& f : d_.network_.type(it->second).template_().field())
        if (!f.record().empty() && cyclic(f.record(), path)) return true;
      path.pop_back();
      state[name] = 2;
      return false;
    };
    for (int i = 0; i < d_.network_.type_size(); ++i) {
      std::vector<std::string> path;
      if (state[d_.network_.type(i).name()] == 0 && cyclic(d_.network_.type(i).name(), path)) {
        std::string chain;
        for (const auto& n : path) chain += n + " -> ";
        error(top_.nested("type", d_.network_.type(i), i).of("name"),
              "template '" + path.front() + "' contains itself: " + chain + path.front());
      }
    }
  }

  // Processes and their ports.
  void processes() {
    for (int i = 0; i < d_.network_.process_size(); ++i) {
      const Process& p = d_.network_.process(i);
      const Place pp = top_.nested("process", p, i);
      if (p.name().empty()) {
        error(pp.of("name"), "a process needs a name");
        continue;
      }
      if (p.name().find_first_of(". \t") != std::string::npos)
        error(pp.of("name"), "process name '" + p.name() + "': no dots or spaces (connections write process.port)");
      if (!process_index_.emplace(p.name(), i).second) {
        error(pp.of("name"), "process '" + p.name() + "' is described twice");
        continue;
      }
      process_names_.push_back(p.name());
      if (p.has_position()) {
        const auto& at = p.position();
        const Place place = pp.nested("position", at);
        if (!(at.column() >= 0 && at.column() <= 1000))
          error(place.of("column"), "column " + std::to_string(at.column()) + ": expected 0 to 1000");
        if (!(at.row() >= 0 && at.row() <= 1000))
          error(place.of("row"), "row " + std::to_string(at.row()) + ": expected 0 to 1000");
      }
      if (p.has_start() && p.start().command().empty())
        error(pp.nested("start", p.start()).of("command"), "start of '" + p.name() + "' needs a command");
      for (const auto& e : p.start().env())
        if (e.find('=') == std::string::npos || e[0] == '=')
          error(pp.nested("start", p.start()).of("env"), "env entry '" + e + "': expected NAME=VALUE");
      checkPorts(p, pp);
    }
  }

  void checkPorts(const Process& p, const Place& pp) {
    std::set<std::string> ports;
    for (int k = 0; k < p.port_size(); ++k) {
      const Port& port = p.port(k);
      const Place place = pp.nested("port", port, k);
      if (port.name().empty()) {
        error(place.of("name"), "a port of '" + p.name() + "' needs a name");
        continue;
      }
      if (!ports.insert(port.name()).second)
        error(place.of("name"), "port '" + port.name() + "' appears twice in '" + p.name() + "'");
      if (port.direction() == DIRECTION_UNSPECIFIED)
        error(place.of("name"), "port '" + p.name() + "." + port.name() + "' needs a direction: IN, OUT or INOUT");
      if (port.has_fd() + !port.path().empty() + (port.tcp_port() != 0) > 1)
        error(place.of("name"), "port '" + p.name() + "." + port.name() +
                                    "' says where it is in more than one way: give one of fd, path, tcp_port");
      if (!port.type().empty() && !type_index_.count(port.type()))
        error(place.of("type"), "unknown type '" + port.type() + "'" + suggestion(port.type(), type_names_, "types"));
      if (port.has_framing()) {
        const Framing& fr = port.framing();
        const Place frp = place.nested("framing", fr);
        if (fr.how_case() == Framing::kLengthPrefix) {
          const uint32_t b = fr.length_prefix().bytes();
          if (b != 1 && b != 2 && b != 4 && b != 8)
            error(frp.nested("length_prefix", fr.length_prefix()).of("bytes"),
                  "a length prefix is 1, 2, 4 or 8 bytes, not " + std::to_string(b));
        } else if (fr.how_case() == Framing::kFixedSize && fr.fixed_size() == 0) {
          error(frp.of("fixed_size"), "fixed_size must be at least 1");
        }
      }
    }
  }

  // A connection's end, "process.port"; false after saying what is wrong.
  bool endpoint(const std::string& spec, std::pair<int, int> at, const Port** port, const Process** process) {
    const auto dot = spec.find('.');
    if (dot == std::string::npos) {
      error(at, "'" + spec + "': expected process.port");
      return false;
    }
    const std::string pname = spec.substr(0, dot), port_name = spec.substr(dot + 1);
    auto it = process_index_.find(pname);
    if (it == process_index_.end()) {
      error(at, "'" + spec + "': unknown process '" + pname + "'" + suggestion(pname, process_names_, "processes"));
      return false;
    }
    *process = &d_.network_.process(it->second);
    *port = d_.port(**process, port_name);
    if (!*port) {
      std::vector<std::string> names;
      for (const auto& p : (*process)->port()) names.push_back(p.name());
      const std::string what = "ports of " + pname;
      error(at, "'" + spec + "': process '" + pname + "' has no port '" + port_name + "'" +
                    suggestion(port_name, names, what.c_str()));
      return false;
    }
    return true;
  }

  // Connections.
  void connections() {
    for (int i = 0; i < d_.network_.connect_size(); ++i) {
      const Connect& c = d_.network_.connect(i);
      const Place cp = top_.nested("connect", c, i);
      const Port* from = nullptr;
      const Process* from_process = nullptr;
      const bool from_ok = endpoint(c.from(), cp.of("from"), &from, &from_process);
      if (from_ok && from->direction() == IN)
        error(cp.of("from"), "'" + c.from() + "' is an input port: a connection goes from an output (OUT or INOUT)");
      if (c.to_size() == 0)
        error(cp.of("from"), "connection from '" + c.from() + "' goes nowhere: add to: \"process.port\"");
      for (int k = 0; k < c.to_size(); ++k) {
        const Port* to = nullptr;
        const Process* to_process = nullptr;
        if (!endpoint(c.to(k), cp.of("to", k), &to, &to_process)) continue;
        if (to->direction() == OUT)
          error(cp.of("to", k),
                from_ok && from->direction() == OUT
                    ? "'" + c.from() + "' and '" + c.to(k) +
                          "' are both outputs: connect an output to an input (IN or INOUT)"
                    : "'" + c.to(k) + "' is an output port: a connection goes to an input (IN or INOUT)");
        else if (from_ok && (from->direction() == INOUT) != (to->direction() == INOUT))
          error(cp.of("to", k),
                "'" + c.from() + "' and '" + c.to(k) +
                    "': an INOUT port connects to an INOUT port (a socket pair), an OUT port to an IN port");
        else if (from_ok && from->direction() == INOUT && c.to_size() > 1)
          error(cp.of("to", k), "an INOUT port connects to one other INOUT port only");
        if (from_ok && from_process == to_process && from == to)
          error(cp.of("to", k), "'" + c.to(k) + "' is connected to itself");
      }
    }
  }

  // Named patterns.
  void patterns() {
    std::set<std::string> pattern_names;
    for (int i = 0; i < d_.network_.pattern_size(); ++i) {
      const Pattern& pat = d_.network_.pattern(i);
      const Place pp = top_.nested("pattern", pat, i);
      if (pat.name().empty()) {
        error(pp.of("name"), "a pattern needs a name");
        continue;
      }
      if (!pattern_names.insert(pat.name() + "\n" + pat.process()).second)
        error(pp.of("name"), "pattern '" + pat.name() + "' is described twice");
      if (pat.step_size() == 0)
        error(pp.of("name"),
              "pattern '" + pat.name() + "' has no step: give its steps as `radar patterns` prints them");
      for (int k = 0; k < pat.step_size(); ++k)
        if (pat.step(k).empty()) error(pp.of("step", k), "an empty step in pattern '" + pat.name() + "'");
    }
  }

  Description& d_;
  const Place top_;
  std::vector<Problem>* problems_;
  const std::string dir_;
  std::vector<std::string> protobuf_names_, type_names_, template_names_, process_names_;
  std::map<std::string, int> type_index_, process_index_;
};

bool Description::check(const std::string& text, std::vector<Problem>* problems) {
  const size_t before = problems->size();
  Tree tree;
  Collector collector(path_, text, problems);
  pb::TextFormat::Parser parser;
  parser.RecordErrorsTo(&collector);
  parser.WriteLocationsTo(&tree);
  if (!parser.ParseFromString(text, &network_)) {
    if (problems->size() == before) problems->push_back({path_, 0, 0, "is not a network description"});
    return false;
  }
  Checker(*this, tree, problems).run();
  return problems->size() == before;
}

}  // namespace radar::netdesc
