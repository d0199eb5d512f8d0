#include "app/scene.h"

#include <fcntl.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

#include "app/labels.h"
#include "binding/binding.h"

namespace radar::app {

using trace::DisplayState;
using trace::Event;
using trace::Kind;

const ProcessBox* Scene::box(uint32_t process) const {
  for (const auto& b : processes)
    if (b.process == process) return &b;
  return nullptr;
}

uint32_t Scene::messageAt(Point p, double slack) const {
  // On one: the last drawn, on top. Else the nearest within the slack.
  for (auto it = messages.rbegin(); it != messages.rend(); ++it)
    if (it->box.contains(p)) return it->send;
  uint32_t nearest = kNone;
  double best = slack;
  for (const MessageBox& m : messages) {
    const double dx = std::max({m.box.x - p.x, 0.0, p.x - (m.box.x + m.box.w)});
    const double dy = std::max({m.box.y - p.y, 0.0, p.y - (m.box.y + m.box.h)});
    if (const double d = std::hypot(dx, dy); d <= best) {
      best = d;
      nearest = m.send;
    }
  }
  return nearest;
}

size_t Scene::bundleAt(Point p, double slack, bool with_labels) const {
  for (const ChannelLabel& l : labels)
    if (with_labels && l.box.contains(p)) return l.bundle;
  size_t nearest = kNoBundle;
  double best = slack;
  for (size_t k = 0; k < bundles.size(); ++k) {
    const ChannelBundle& b = bundles[k];
    Point from = b.a;
    for (int piece = 1; piece <= 16; ++piece) {
      const Point to = onCurve(b.a, b.control, b.b, piece / 16.0);
      if (const double d = distanceToSegment(p, from, to); d <= best) {
        best = d;
        nearest = k;
      }
      from = to;
    }
  }
  return nearest;
}

uint32_t Scene::processAt(Point p) const {
  for (auto it = processes.rbegin(); it != processes.rend(); ++it)
    if (it->box.contains(p)) return it->process;
  return kNone;
}

// A process and the images it exec's into share one place on screen: a
// chain of images. Its lifetime spans theirs.
void SceneBuilder::findChains() {
  const auto& t = t_;
  const uint32_t n = static_cast<uint32_t>(t.processes.size());
  chain_.assign(n, kNone);
  std::vector<bool> has_previous(n, false);
  for (const auto& q : t.processes)
    if (q.next_image < n) has_previous[q.next_image] = true;
  for (uint32_t p = 0; p < n; ++p) {
    if (chain_[p] != kNone || has_previous[p]) continue;  // reached from its first image
    const uint32_t id = static_cast<uint32_t>(chains_.size());
    Chain c{p, p, {~0u, 0}};
    bool open_end = false;
    for (uint32_t image = p; image != kNone && chain_[image] == kNone; image = t.processes[image].next_image) {
      chain_[image] = id;
      c.last_image = image;
      const auto& proc = t.processes[image];
      // On stage from the event that created it (display.cc).
      if (const uint32_t created = t.createdAt(image); created != kNone) c.life.first = std::min(c.life.first, created);
      if (proc.first_event == kNone) {
        open_end = true;  // exec'd into and nothing recorded: shown to the end (display.cc)
        continue;
      }
      c.life.first = std::min(c.life.first, proc.first_event);
      c.life.last = std::max(c.life.last, proc.last_event);
      open_end = proc.end == trace::Process::End::Unknown;
    }
    if (c.life.first == ~0u)
      c.life = {~0u - 1, ~0u - 1};  // never shown: a cell nobody else needs
    else if (open_end)
      c.life.last = ~0u - 1;  // never ended: keeps its place to the end
    chains_.push_back(c);
  }
  for (uint32_t p = 0; p < n; ++p)
    if (chain_[p] == kNone) {  // a cycle of next images (damaged logs): its own cell
      chain_[p] = static_cast<uint32_t>(chains_.size());
      chains_.push_back({p, p, {~0u - 1, ~0u - 1}});
    }
  // Siblings: chains one chain created that end as one program.
  std::map<std::pair<uint32_t, std::string>, uint32_t> sets;
  sibling_set_.resize(chains_.size());
  for (uint32_t c = 0; c < chains_.size(); ++c) {
    const uint32_t parent = t.processes[chains_[c].first_image].parent;
    const uint32_t creator = parent < n ? chain_[parent] : kNone;
    const auto key = std::make_pair(creator, t.processName(chains_[c].last_image));
    sibling_set_[c] = sets.try_emplace(key, static_cast<uint32_t>(sets.size())).first->second;
  }
  sibling_count_.assign(sets.size(), 0);
  for (uint32_t c = 0; c < chains_.size(); ++c) ++sibling_count_[sibling_set_[c]];
  // How much each channel ties its holders: by the messages sent on it.
  std::vector<uint32_t> messages(t.channels.size(), 0);
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const trace::Event& e = t.events[i];
    if (e.endpoint == kNone || !e.value || (e.flags & trace::kEventFailed) ||
        log::categoryOf(e.eventKind()) != log::Category::Send)
      continue;
    const uint32_t c = t.endpoints[e.endpoint].channel;
    if (c < messages.size()) ++messages[c];
  }
  channel_weight_.resize(messages.size());
  for (size_t c = 0; c < messages.size(); ++c)
    channel_weight_[c] = messages[c] ? 1 + std::log2(1.0 + messages[c]) : 0.01;
}

// Who sent to whom on each channel that more than two processes hold, and
// from which event on: from the story's message edges, once.
void SceneBuilder::findTalks() {
  const auto& t = t_;
  std::vector<uint32_t> holders(t.channels.size(), 0);
  std::vector<uint32_t> processes;
  for (uint32_t c = 0; c < t.channels.size(); ++c) {
    processes.clear();
    for (uint32_t ep : t.channels[c].endpoints)
      if (t.endpoints[ep].process != kNone) processes.push_back(t.endpoints[ep].process);
    std::sort(processes.begin(), processes.end());
    holders[c] = static_cast<uint32_t>(std::unique(processes.begin(), processes.end()) - processes.begin());
  }
  std::map<std::tuple<uint32_t, uint32_t, uint32_t>, uint32_t> first;  // (channel, from, to) -> send
  for (size_t k = 0; k < t.edges.size(); ++k) {
    const trace::Edge& e = t.edges[k];
    if (e.why != trace::Edge::Why::Message) continue;
    const Event& send = t.events[e.from];
    if (send.endpoint == kNone) continue;
    const uint32_t c = t.endpoints[send.endpoint].channel;
    if (c >= holders.size() || holders[c] <= 2) continue;
    const auto [it, fresh] = first.try_emplace({c, send.process, t.events[e.to].process}, e.from);
    if (!fresh) it->second = std::min<uint32_t>(it->second, e.from);
  }
  for (const auto& [key, at] : first) talks_[std::get<0>(key)].push_back({std::get<1>(key), std::get<2>(key), at});
}

void SceneBuilder::setLabelMetrics(TextWidth width, double height) {
  text_width_ = std::move(width);
  text_height_ = height;
}

std::string SceneBuilder::bundleText(const std::vector<uint32_t>& channels) const {
  if (channels.empty()) return {};
  const uint32_t c = channels.front();
  std::string text = c < t_.described.channels.size() && !t_.described.channels[c].empty()
                         ? t_.described.channels[c]
                         : shortChannelName(t_.channelName(c));
  if (channels.size() > 1) text += " +" + std::to_string(channels.size() - 1);
  return text;
}

// Chains grouped into one box count as one; chains that share channels are
// placed near each other (assignCells).
void SceneBuilder::place() {
  const auto& t = t_;
  const uint32_t n = static_cast<uint32_t>(t.processes.size());
  // Units placed: a chain, or a group of them (its first chain stands for it).
  std::vector<uint32_t> unit(chains_.size());
  std::vector<Lifetime> lifetimes;
  std::map<uint32_t, uint32_t> unit_of_set;
  for (uint32_t c = 0; c < chains_.size(); ++c) {
    const Lifetime life = chains_[c].life;
    if (grouped_.count(sibling_set_[c])) {
      auto [it, fresh] = unit_of_set.try_emplace(sibling_set_[c], static_cast<uint32_t>(lifetimes.size()));
      if (fresh) {
        lifetimes.push_back(life);
      } else {
        Lifetime& l = lifetimes[it->second];
        l = {std::min(l.first, life.first), std::max(l.last, life.last)};
      }
      unit[c] = it->second;
    } else {
      unit[c] = static_cast<uint32_t>(lifetimes.size());
      lifetimes.push_back(life);
    }
  }
  // Units are connected by the channels they share, the more the more
  // messages those carried: a descriptor inherited and never used (every
  // server child holds its parent's pipes) pulls little. A channel held by
  // very many (a listening socket every worker inherits) says little about
  // who talks to whom, and would cost pairs by the square.
  constexpr size_t kMostHolders = 16;
  std::unordered_map<uint32_t, std::vector<uint32_t>> holders;  // channel -> units
  for (const auto& ep : t.endpoints)
    if (ep.process < n && ep.channel < channel_weight_.size()) holders[ep.channel].push_back(unit[chain_[ep.process]]);
  std::map<std::pair<uint32_t, uint32_t>, double> weight;
  for (auto& [channel, units] : holders) {
    std::sort(units.begin(), units.end());
    units.erase(std::unique(units.begin(), units.end()), units.end());
    if (units.size() < 2 || units.size() > kMostHolders) continue;
    for (size_t i = 0; i < units.size(); ++i)
      for (size_t j = i + 1; j < units.size(); ++j) weight[{units[i], units[j]}] += channel_weight_[channel];
  }
  Neighbours neighbours(lifetimes.size());
  for (const auto& [pair, w] : weight) {
    neighbours[pair.first].push_back({pair.second, w});
    neighbours[pair.second].push_back({pair.first, w});
  }
  uint32_t needed = 0;
  for (uint32_t s : assignSlots(lifetimes)) needed = std::max(needed, s + 1);
  const uint32_t columns = GridLayout(needed).columns();
  // A host is a group of boxes: its units in rows of their own.
  std::vector<uint32_t> host_of_unit(lifetimes.size(), 0);
  if (t.several_hosts) {
    std::map<std::string, uint32_t> hosts;
    for (uint32_t c = 0; c < chains_.size(); ++c)
      host_of_unit[unit[c]] =
          hosts.try_emplace(t.processes[chains_[c].first_image].host, static_cast<uint32_t>(hosts.size()))
              .first->second;
  }
  const std::vector<uint32_t> cells = assignCellsByGroup(lifetimes, neighbours, host_of_unit, columns);
  uint32_t used = 1;
  slot_.resize(n);
  box_process_.resize(n);
  std::vector<uint32_t> first_of_unit(lifetimes.size(), kNone);
  for (uint32_t c = 0; c < chains_.size(); ++c)
    if (first_of_unit[unit[c]] == kNone) first_of_unit[unit[c]] = chains_[c].first_image;
  for (uint32_t p = 0; p < n; ++p) {
    const uint32_t u = unit[chain_[p]];
    slot_[p] = cells[u];
    used = std::max(used, slot_[p] + 1);
    box_process_[p] = grouped_.count(sibling_set_[chain_[p]]) ? first_of_unit[u] : p;
  }
  grid_ = GridLayout(used, columns);
}

std::vector<uint32_t> SceneBuilder::siblingsOf(uint32_t process) const {
  std::vector<uint32_t> out;
  if (process >= chain_.size()) return out;
  const uint32_t set = sibling_set_[chain_[process]];
  for (uint32_t c = 0; c < chains_.size(); ++c)
    if (sibling_set_[c] == set) out.push_back(chains_[c].first_image);
  return out;
}

bool SceneBuilder::grouped(uint32_t process) const {
  return process < chain_.size() && grouped_.count(sibling_set_[chain_[process]]);
}

void SceneBuilder::setGrouped(uint32_t process, bool grouped) {
  if (process >= chain_.size()) return;
  const uint32_t set = sibling_set_[chain_[process]];
  if (grouped == (grouped_.count(set) != 0) || (grouped && sibling_count_[set] < 2)) return;
  if (grouped)
    grouped_.insert(set);
  else
    grouped_.erase(set);
  place();
}

void SceneBuilder::ungroupAll() {
  if (grouped_.empty()) return;
  grouped_.clear();
  place();
}

uint32_t SceneBuilder::groupSiblings(uint32_t at_least) {
  uint32_t groups = 0;
  for (uint32_t set = 0; set < sibling_count_.size(); ++set)
    if (sibling_count_[set] >= std::max(at_least, 2u) && grouped_.insert(set).second) ++groups;
  if (groups) place();
  return groups;
}

SceneBuilder::SceneBuilder(const trace::Trace& trace, const trace::DisplayModel& display)
    : t_(trace), display_(display), grid_(1) {
  findChains();
  findTalks();
  place();
  for (uint32_t k = 0; k < t_.endpoints.size(); ++k) {
    const auto& ep = t_.endpoints[k];
    if (ep.process == kNone || ep.channel == kNone || !reads(k)) continue;
    end_by_process_channel_.try_emplace(uint64_t{ep.process} << 32 | ep.channel, k);
  }
}

// Sockets and MPI communicators go both ways; pipes, FIFOs, terminals and
// devices as opened.
bool SceneBuilder::reads(uint32_t endpoint) const {
  const auto& ep = t_.endpoints[endpoint];
  return log::isSocket(ep.type) || log::isMpiType(ep.type) || (ep.access & O_ACCMODE) != O_WRONLY;
}

bool SceneBuilder::writes(uint32_t endpoint) const {
  const auto& ep = t_.endpoints[endpoint];
  return log::isSocket(ep.type) || log::isMpiType(ep.type) || (ep.access & O_ACCMODE) != O_RDONLY;
}

uint32_t SceneBuilder::receivingEnd(uint32_t process, uint32_t channel) const {
  auto it = end_by_process_channel_.find(uint64_t{process} << 32 | channel);
  return it == end_by_process_channel_.end() ? kNone : it->second;
}

Rect SceneBuilder::boxOf(uint32_t process) const {
  process = boxProcess(process);
  if (auto it = moved_.find(process); it != moved_.end())
    return {it->second.x, it->second.y, geometry::kBoxWidth, geometry::kBoxHeight};
  if (auto it = described_.find(process); it != described_.end())
    return {it->second.x, it->second.y, geometry::kBoxWidth, geometry::kBoxHeight};
  Rect r = grid_.slotRect(slot_[process]);
  r.y += automatic_y_;
  return r;
}

void SceneBuilder::placeDescribed(const std::vector<std::pair<uint32_t, Point>>& cells) {
  described_.clear();
  double last_row = -1;
  for (const auto& [p, cell] : cells) {
    const Rect r = GridLayout::cellRect(cell.x, cell.y);
    described_[p] = {r.x, r.y};
    last_row = std::max(last_row, cell.y);
  }
  automatic_y_ = std::ceil(last_row + 1) * (geometry::kBoxHeight + geometry::kGapY);
}

void SceneBuilder::placeDescribed(const netdesc::Binding& net) {
  std::map<uint32_t, Point> cells;
  std::map<const netdesc::Process*, int> instances;
  for (const auto& p : t_.processes) {
    const netdesc::Process* d = net.processOf(p.index);
    if (!d || !d->has_position()) continue;
    const int k = instances[d]++;
    cells[p.index] = {d->position().column() + 0.15 * k, d->position().row() + 0.3 * k};
  }
  const auto& procs = t_.processes;
  const std::map<uint32_t, Point> described = cells;
  for (const auto& [p, cell] : described) {
    // An exec'd image's parent is the image before it.
    for (uint32_t q = p; procs[q].origin == log::Origin::Execed && procs[q].parent != trace::kNone;) {
      q = procs[q].parent;
      if (!cells.try_emplace(q, cell).second) break;
    }
    for (uint32_t q = procs[p].next_image; q < procs.size(); q = procs[q].next_image)
      if (!cells.try_emplace(q, cell).second) break;
  }
  placeDescribed({cells.begin(), cells.end()});
}

void SceneBuilder::moveBox(uint32_t process, Point top_left) { moved_[boxProcess(process)] = top_left; }

std::vector<std::pair<uint32_t, Point>> SceneBuilder::movedBoxes() const {
  std::vector<std::pair<uint32_t, Point>> out(moved_.begin(), moved_.end());
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

Rect SceneBuilder::bounds() const {
  Rect r = grid_.bounds();
  r.h += automatic_y_;
  std::vector<Point> corners;
  for (const auto& [p, at] : moved_) corners.push_back(at);
  for (const auto& [p, at] : described_) corners.push_back(at);
  for (const Point& at : corners) {
    const double x0 = std::min(r.x, at.x), y0 = std::min(r.y, at.y);
    const double x1 = std::max(r.x + r.w, at.x + geometry::kBoxWidth + geometry::kGapX / 2);
    const double y1 = std::max(r.y + r.h, at.y + geometry::kBoxHeight + geometry::kGapY / 2);
    r = {x0, y0, x1 - x0, y1 - y0};
  }
  return r;
}

namespace {
// How many queued messages a line between two boxes shows before a count:
// as many as fit on it with the count beside them (26 wide).
uint32_t roomOnLine(Point a, Point b) {
  const double length = std::hypot(b.x - a.x, b.y - a.y);
  return static_cast<uint32_t>(std::clamp(
      std::floor((length - 2 * geometry::kMessageGap - 26) / (geometry::kMessageSize + geometry::kMessageGap)), 1.0,
      double(SceneBuilder::kMaxQueueDrawn)));
}
struct BoxChannelHash {
  size_t operator()(const std::pair<size_t, uint32_t>& k) const {
    return std::hash<uint64_t>()(uint64_t{k.first} << 32 ^ k.second);
  }
};

// The box of each process in a scene, found at once: a frame looks up
// thousands (a map's search each would cost most of the frame).
struct BoxOf {
  explicit BoxOf(size_t processes) : box(processes, kNone) {}
  bool count(uint32_t p) const { return p < box.size() && box[p] != kNone; }
  size_t operator[](uint32_t p) const { return box[p]; }
  std::vector<uint32_t> box;  // kNone: not on screen
};
}  // namespace

// One scene being put together: the boxes, the lines between them, the
// ports where lines meet boxes, and the messages queued at them.
class SceneBuilder::Assembly {
 public:
  Assembly(const SceneBuilder& builder, uint32_t position, double progress)
      : b_(builder), t_(builder.t_), index_(builder.t_.processes.size()) {
    const uint32_t n = static_cast<uint32_t>(t_.events.size());
    position_ = std::min(position, n);
    s_.position = position_;
    s_.progress = std::clamp(progress, 0.0, 1.0);
    s_.bounds = b_.bounds();
    after_ = b_.display_.stateAt(position_);
    animating_ = position_ > 0 && s_.progress < 1;
    if (position_ > 0) {
      s_.event = position_ - 1;
      if (animating_) before_ = b_.display_.stateAt(position_ - 1);
    }
    ev_ = s_.event == kNone ? nullptr : &t_.events[s_.event];
    category_ = ev_ ? log::categoryOf(ev_->eventKind()) : log::Category::Annotation;
  }

  Scene build() {
    processBoxes();
    hostFrames();
    adoptImages();
    deadlocks();
    openPorts();
    channelLines();
    pendingMessages();
    linesForPending();
    placePorts();
    messages();
    bundleLines();
    return std::move(s_);
  }

 private:
  // Each host's boxes on screen, framed a little beyond them (within the
  // gap between rows, so that bands of hosts do not overlap).
  void hostFrames() {
    if (!t_.several_hosts) return;
    std::map<std::string, size_t> frame_of;
    for (const ProcessBox& b : s_.processes) {
      const std::string& host = t_.processes[b.process].host;
      auto [it, fresh] = frame_of.try_emplace(host, s_.hosts.size());
      if (fresh) {
        s_.hosts.push_back({host, b.box});
        continue;
      }
      Rect& r = s_.hosts[it->second].box;
      const double x1 = std::max(r.x + r.w, b.box.x + b.box.w), y1 = std::max(r.y + r.h, b.box.y + b.box.h);
      r.x = std::min(r.x, b.box.x);
      r.y = std::min(r.y, b.box.y);
      r.w = x1 - r.x;
      r.h = y1 - r.y;
    }
    constexpr double kMarginX = geometry::kGapX / 4, kMarginY = geometry::kGapY / 3;
    for (auto& frame : s_.hosts)
      frame.box = {frame.box.x - kMarginX, frame.box.y - kMarginY, frame.box.w + 2 * kMarginX,
                   frame.box.h + 2 * kMarginY};
  }

  // A line between two boxes, where it meets one of them.
  struct LineEnd {
    Point at, toward, control;
    uint32_t room;
    bool bent;
  };
  struct Joined {
    Point a, b, control;
  };
  // A message shown: queued, travelling or consumed, and the input end
  // (standing for its box's port) it waits at.
  struct Pending {
    const trace::QueuedMessage* m;
    uint32_t in_end;
    MessageBox::State state;
  };

  void processBoxes() {
    // Processes: those alive after the event; while it is shown, also one
    // that leaves with it.
    std::set<uint32_t> shown(after_.alive.begin(), after_.alive.end());
    if (animating_) shown.insert(before_.alive.begin(), before_.alive.end());
    if (animating_) shown.insert(ev_->process);
    if (position_ == 0 && !t_.events.empty()) shown.insert(t_.events[0].process);  // the first frame is not empty
    std::set<uint32_t> blocked;
    for (const auto& b : after_.blocked) blocked.insert(b.process);
    // A box a process, or one for a group of siblings (what every member
    // does, its box does).
    for (uint32_t p : shown) {
      const uint32_t r = b_.boxProcess(p);
      const auto [it, fresh] = box_index_.try_emplace(r, s_.processes.size());
      if (fresh) {
        ProcessBox b;
        b.process = r;
        b.box = b_.boxOf(r);
        b.name = t_.processName(p);
        b.pid = t_.processes[p].pid;
        b.not_recorded = t_.processes[p].not_recorded;
        b.members = 0;
        b.ending = true;
        s_.processes.push_back(b);
      }
      ProcessBox& b = s_.processes[it->second];
      ++b.members;
      b.blocked_members += blocked.count(p) != 0;
      b.active = b.active || (ev_ && ev_->process == p);  // while its event plays, and after it, at rest
      // Leaving with its last member (the first frame's process is not leaving: it has not come yet).
      b.ending = b.ending && position_ > 0 && !std::binary_search(after_.alive.begin(), after_.alive.end(), p);
      index_.box[p] = static_cast<uint32_t>(it->second);
    }
    for (ProcessBox& b : s_.processes) {
      b.blocked = b.blocked_members == b.members;
      if (b_.grouped(b.process)) {
        b.name += " × " + std::to_string(b.members);
        b.pid = 0;
      }
    }
  }

  void adoptImages() {
    // A message for an image that a shown one exec's into later (a shell
    // about to exec its command) waits at that chain's box: the same place
    // on screen.
    auto adopt = [&](uint32_t to) {
      if (to >= b_.chain_.size() || index_.count(to) || b_.chain_[to] == kNone) return;
      for (uint32_t image = b_.chains_[b_.chain_[to]].first_image; image != kNone;
           image = t_.processes[image].next_image)
        if (index_.count(image)) {
          index_.box[to] = index_.box[image];
          return;
        }
    };
    for (const auto& m : after_.queued) adopt(m.to_process);
    for (const auto& m : before_.queued) adopt(m.to_process);
  }

  void deadlocks() {
    // Deadlocks: drawn once every process of the cycle is in the call it
    // never returns from (its last event: the blocked call, or the last it
    // made before it).
    for (const auto& f : t_.findings) {
      if (f.kind != trace::Finding::Kind::Deadlock || f.events.empty()) continue;
      const uint32_t formed = *std::max_element(f.events.begin(), f.events.end());
      if (position_ <= formed) continue;
      for (const trace::Finding::Wait& w : f.waits_for)
        if (index_.count(w.waiter) && index_.count(w.holder)) s_.waits.push_back({w.waiter, w.holder});
    }
  }

  void openPorts() {
    // Ports: a channel a process has open, however many descriptors it has
    // for it (dup'd, inherited twice); and the channels between processes.
    for (uint32_t ep : after_.open) {
      const auto& end = t_.endpoints[ep];
      if (!index_.count(end.process)) continue;
      const size_t b = index_[end.process];
      if (b_.reads(ep) && in_ports_.insert({b, end.channel}).second) ++s_.processes[b].inputs;
      if (b_.writes(ep) && out_ports_.insert({b, end.channel}).second) ++s_.processes[b].outputs;
    }
  }

  // A line between two boxes: from border to border (never across a box
  // of its own), bent around the others (it would seem to join them; but
  // not for crowds too big to read lines in anyway). Where it meets each
  // box, that box's ports of the channel stand, and their queues line up
  // along it, toward the other end.
  Joined join(size_t w, size_t r, uint32_t c) {
    const Rect& from = s_.processes[w].box;
    const Rect& to = s_.processes[r].box;
    const Point a = borderToward(from, to.center()), b = borderToward(to, from.center());
    Point control{(a.x + b.x) / 2, (a.y + b.y) / 2};
    if (s_.processes.size() <= kMostBoxesForBends) {
      std::vector<Rect> others;
      for (size_t k = 0; k < s_.processes.size(); ++k)
        if (k != w && k != r) others.push_back(s_.processes[k].box);
      // One bend for both ways between two boxes: the lines bundled as one
      // are one curve, whichever way each channel goes.
      control = w < r ? bendAround(a, b, others) : bendAround(b, a, others);
    }
    const uint32_t room = roomOnLine(a, b);
    const bool bent = !isStraight(a, control, b);
    line_end_.try_emplace({w, c}, LineEnd{a, direction(a, control), control, room, bent});
    line_end_.try_emplace({r, c}, LineEnd{b, direction(b, control), control, room, bent});
    return Joined{a, b, control};
  }

  // The pairs of boxes that passed a message on a channel more than two
  // processes hold, by now: the only pairs it is drawn between.
  std::set<std::pair<size_t, size_t>> talkedOn(uint32_t channel) const {
    std::set<std::pair<size_t, size_t>> pairs;
    const auto it = b_.talks_.find(channel);
    if (it == b_.talks_.end()) return pairs;
    for (const Talk& talk : it->second)
      if (talk.first < position_ && index_.count(talk.from) && index_.count(talk.to))
        pairs.insert({index_[talk.from], index_[talk.to]});
    return pairs;
  }

  void channelLines() {
    std::map<uint32_t, std::pair<std::vector<size_t>, std::vector<size_t>>> by_channel;  // writers, readers
    for (const auto& [b, c] : out_ports_) by_channel[c].first.push_back(b);
    for (const auto& [b, c] : in_ports_) by_channel[c].second.push_back(b);
    std::set<std::tuple<uint32_t, size_t, size_t>> done;
    for (const auto& [c, ends] : by_channel) {
      // Held open by more than two boxes now (a pool's pipes, every worker
      // having inherited them): only where messages went. Two: always, as
      // a reader waiting on an empty pipe needs its writer shown.
      std::vector<size_t> holders = ends.first;
      holders.insert(holders.end(), ends.second.begin(), ends.second.end());
      std::sort(holders.begin(), holders.end());
      const bool shared = std::unique(holders.begin(), holders.end()) - holders.begin() > 2;
      const auto talked = shared ? talkedOn(c) : std::set<std::pair<size_t, size_t>>{};
      for (size_t w : ends.first)
        for (size_t r : ends.second) {
          if (w == r) continue;  // within one box (a group's members)
          if (shared && !talked.count({w, r})) continue;
          const bool both = shared ? talked.count({r, w}) != 0 : in_ports_.count({w, c}) && out_ports_.count({r, c});
          const auto key = both ? std::make_tuple(c, std::min(w, r), std::max(w, r)) : std::make_tuple(c, w, r);
          if (!done.insert(key).second) continue;
          const auto line = join(w, r, c);
          s_.channels.push_back(
              {c, s_.processes[w].process, s_.processes[r].process, line.a, line.b, line.control, both});
        }
    }
  }

  // One line a pair of boxes, whichever way and however many channels.
  void bundleLines() {
    std::map<std::pair<uint32_t, uint32_t>, size_t> bundle_of;
    for (const ChannelLine& line : s_.channels) {
      const auto key = std::minmax(line.from, line.to);
      const auto [it, fresh] = bundle_of.try_emplace({key.first, key.second}, s_.bundles.size());
      if (fresh) s_.bundles.push_back({line.from, line.to, line.a, line.b, line.control, {}});
      s_.bundles[it->second].channels.push_back(line.channel);
    }
    for (ChannelBundle& b : s_.bundles) {
      std::sort(b.channels.begin(), b.channels.end());
      b.channels.erase(std::unique(b.channels.begin(), b.channels.end()), b.channels.end());
    }
  }

  // A port is a channel of a box: the members of a group share theirs (the
  // first end seen stands for the others).
  uint32_t portEnd(uint32_t ep) {
    if (!any_group_) return ep;
    const auto& end = t_.endpoints[ep];
    if (!index_.count(end.process) || end.channel == kNone || s_.processes[index_[end.process]].members <= 1) return ep;
    return port_end_.try_emplace(uint64_t{index_[end.process]} << 32 | end.channel, ep).first->second;
  }

  // Ports in use: an output port while a message it sent is on its way or
  // queued, an input port while messages wait in front of it.
  void note(const trace::QueuedMessage& m, MessageBox::State st) {
    const Event& send = t_.events[m.send];
    if (send.endpoint != kNone && index_.count(send.process))
      outs_[index_[send.process]].insert(portEnd(send.endpoint));
    uint32_t in_end = kNone;
    if (m.to_process != kNone && index_.count(m.to_process)) {
      in_end = b_.receivingEnd(m.to_process, t_.endpoints[send.endpoint].channel);
      if (in_end != kNone) {
        in_end = portEnd(in_end);
        ins_[index_[m.to_process]].insert(in_end);
      }
    }
    pending_.push_back({&m, in_end, st});
  }

  void pendingMessages() {
    any_group_ =
        std::any_of(s_.processes.begin(), s_.processes.end(), [](const ProcessBox& b) { return b.members > 1; });
    for (const auto& m : after_.queued) {
      if (m.send == s_.event && animating_)
        note(m, MessageBox::State::Travelling);
      else
        note(m, MessageBox::State::Queued);
    }
    // What the event being shown takes off a queue goes into the process.
    if (animating_ && category_ == log::Category::Receive) {
      for (const auto& m : before_.queued) {
        auto it = std::lower_bound(after_.queued.begin(), after_.queued.end(), m.send,
                                   [](const trace::QueuedMessage& q, uint32_t v) { return q.send < v; });
        if (it == after_.queued.end() || it->send != m.send) note(m, MessageBox::State::Consumed);
      }
    }
    if (animating_ && ev_->endpoint != kNone) {
      if (category_ == log::Category::Send) outs_[index_[ev_->process]].insert(portEnd(ev_->endpoint));
      if (category_ == log::Category::Receive) ins_[index_[ev_->process]].insert(portEnd(ev_->endpoint));
    }
  }

  void linesForPending() {
    // A message on its way to a box whose end of the channel has no line
    // yet (the reader has not used it): its ports face each other all the
    // same, on the line the channel will have.
    for (const Pending& q : pending_) {
      if (q.in_end == kNone) continue;
      const Event& send = t_.events[q.m->send];
      if (!index_.count(send.process) || !index_.count(q.m->to_process)) continue;
      const size_t wi = index_[send.process], ri = index_[q.m->to_process];
      if (wi == ri) continue;
      const uint32_t c = t_.endpoints[send.endpoint].channel;
      if (line_end_.count({wi, c}) && line_end_.count({ri, c})) continue;
      join(wi, ri, c);
    }
  }

  void placePorts() {
    for (int side = 0; side < 2; ++side) {
      for (const auto& [b, ends] : side == 0 ? ins_ : outs_) {
        const Rect& box = s_.processes[b].box;
        uint32_t k = 0;
        std::map<std::pair<double, double>, std::vector<size_t>> at_point;  // ports of this side at one point
        for (uint32_t ep : ends) {
          // On the line of its channel; without one on screen, on the left
          // (input) or right (output) border, spread along it.
          PortMark mark{s_.processes[b].process, ep, side == 0, {}, {side == 0 ? -1.0 : 1.0, 0}, {}, kMaxQueueDrawn};
          mark.at = portPosition(box, side == 0, k++, static_cast<uint32_t>(ends.size()));
          if (const auto it = line_end_.find({b, t_.endpoints[ep].channel}); it != line_end_.end()) {
            mark.at = it->second.at;
            mark.toward = it->second.toward;
            mark.room = it->second.room;
            if (it->second.bent) port_bend_[ep * 2 + side] = it->second.control;
            at_point[{mark.at.x, mark.at.y}].push_back(s_.ports.size());
          }
          port_at_[ep * 2 + side] = mark.at;
          port_index_[ep * 2 + side] = s_.ports.size();
          s_.ports.push_back(mark);
        }
        // Several ports where one line meets the box (channels to one peer):
        // side by side across the line, on the box.
        for (const auto& [point, marks] : at_point) {
          for (size_t k2 = 0; k2 < marks.size(); ++k2) {
            PortMark& m = s_.ports[marks[k2]];
            const double shift = (double(k2) - double(marks.size() - 1) / 2) * 16;
            m.at = {std::clamp(m.at.x - m.toward.y * shift, box.x, box.x + box.w),
                    std::clamp(m.at.y + m.toward.x * shift, box.y, box.y + box.h)};
            port_at_[m.endpoint * 2 + (side == 0 ? 0 : 1)] = m.at;
          }
        }
        // A queue on a line keeps to its right, and the one the other way to
        // theirs: they pass each other.
        for (size_t k2 = s_.ports.size() - ends.size(); k2 < s_.ports.size(); ++k2) {
          PortMark& m = s_.ports[k2];
          const bool on_line = line_end_.count({b, t_.endpoints[m.endpoint].channel}) != 0;
          const double aside = on_line ? geometry::kMessageSize / 2 + 1 : 0;
          m.queue_at = {m.at.x - m.toward.y * aside, m.at.y + m.toward.x * aside};
          m.first = clearOf(box, m.queue_at, m.toward);
        }
      }
    }
  }

  void messages() {
    // Messages: queued in send order in front of their input port (the head
    // is received next); the one being sent travels to the end of its queue.
    std::unordered_map<uint32_t, uint32_t> queue_length;    // input endpoint -> messages so far
    std::unordered_map<uint32_t, uint32_t> waiting_length;  // output endpoint -> messages waiting for nobody on screen
    std::vector<MessageBox> travelling;
    for (const Pending& q : pending_) {
      const Event& send = t_.events[q.m->send];
      MessageBox mb;
      mb.send = q.m->send;
      mb.to_process = q.m->to_process;
      mb.state = q.state;
      const uint32_t out_end = send.endpoint == kNone ? kNone : portEnd(send.endpoint);
      const auto out_port = port_at_.find(out_end * 2 + 1);
      const Point from = out_port != port_at_.end()   ? out_port->second
                         : index_.count(send.process) ? s_.processes[index_[send.process]].box.center()
                                                      : Point{};
      const double half = geometry::kMessageSize / 2;
      if (q.in_end == kNone) {
        // Nobody on screen will receive it (none recorded, or not started
        // yet): it waits outside the sender, in send order, as a queue does.
        const uint32_t slot = waiting_length[out_end]++;
        const auto at = port_index_.find(out_end * 2 + 1);
        if (slot >= (at != port_index_.end() ? s_.ports[at->second].room : kMaxQueueDrawn)) {
          if (at != port_index_.end()) ++s_.ports[at->second].hidden;
          continue;
        }
        mb.box = at != port_index_.end() ? queueSlot(s_.ports[at->second], slot) : waitingSlot(from, slot);
        s_.messages.push_back(mb);
        continue;
      }
      const PortMark& in_port = s_.ports[port_index_[q.in_end * 2]];
      const Point in = in_port.queue_at;
      if (q.state == MessageBox::State::Consumed) {
        // From the head of the queue into the box.
        const Point head = queueSlot(in_port, 0).center();
        const Point inside{in.x - in_port.toward.x * (half + 4), in.y - in_port.toward.y * (half + 4)};
        const Point c = along(head, inside, s_.progress);
        mb.box = {c.x - half, c.y - half, geometry::kMessageSize, geometry::kMessageSize};
        s_.messages.push_back(mb);
        continue;
      }
      const uint32_t slot = queue_length[q.in_end]++;
      if (PortMark& port = s_.ports[port_index_[q.in_end * 2]]; slot >= port.room) {
        ++port.hidden;
        continue;
      }
      const Rect target = queueSlot(in_port, slot);
      if (q.state == MessageBox::State::Travelling) {
        // From just outside its sender's port, along its channel's line (bent
        // around the boxes between, if it is).
        const auto out_at = port_index_.find(out_end * 2 + 1);
        const Point start = out_at != port_index_.end() ? queueSlot(s_.ports[out_at->second], 0).center() : from;
        const auto bend = port_bend_.find(out_end * 2 + 1);
        const Point end = target.center();
        const Point control =
            bend != port_bend_.end() ? bend->second : Point{(start.x + end.x) / 2, (start.y + end.y) / 2};
        const Point c = onCurve(start, control, end, ease(s_.progress));
        mb.box = {c.x - half, c.y - half, geometry::kMessageSize, geometry::kMessageSize};
        travelling.push_back(mb);
      } else {
        mb.box = target;
        s_.messages.push_back(mb);
      }
    }
    // Those on their way are drawn last, over the queues.
    s_.messages.insert(s_.messages.end(), travelling.begin(), travelling.end());
  }

  const SceneBuilder& b_;
  const trace::Trace& t_;
  Scene s_;
  uint32_t position_ = 0;
  DisplayState after_, before_;
  bool animating_ = false;
  const Event* ev_ = nullptr;
  log::Category category_ = log::Category::Annotation;
  BoxOf index_;                                                                        // process -> its box
  std::unordered_map<uint32_t, size_t> box_index_;                                     // box process -> its box
  std::set<std::pair<size_t, uint32_t>> in_ports_, out_ports_;                         // (box, channel)
  std::unordered_map<std::pair<size_t, uint32_t>, LineEnd, BoxChannelHash> line_end_;  // (box, channel)
  bool any_group_ = false;
  std::unordered_map<uint64_t, uint32_t> port_end_;  // (box, channel) -> the end standing for them
  std::vector<Pending> pending_;
  std::map<size_t, std::set<uint32_t>> ins_, outs_;  // box -> ports (endpoints)
  std::unordered_map<uint32_t, Point> port_at_;      // endpoint * 2 + (output) -> where its port is
  std::unordered_map<uint32_t, Point> port_bend_;    // the same -> the control point of its channel's line
  std::unordered_map<uint32_t, size_t> port_index_;
};

namespace {
// What a name must not cover: boxes, the queues' places (as long as they
// may grow, so that names stay put while messages come and go), the
// counts beside them, messages waiting, hosts' names.
Occupied takenIn(const Scene& s) {
  Occupied occupied;
  for (const ProcessBox& b : s.processes) occupied.add({b.box.x - 2, b.box.y - 2, b.box.w + 4, b.box.h + 4});
  for (const PortMark& port : s.ports) {
    occupied.add({port.at.x - 7, port.at.y - 7, 14, 14});  // its notch across the border
    for (uint32_t k = 0; k < port.room; ++k) occupied.add(queueSlot(port, k));
    const Point count = queueSlot(port, port.room).center();
    occupied.add({count.x - 13, count.y - 8, 26, 16});
  }
  for (const MessageBox& m : s.messages)
    if (m.state == MessageBox::State::Queued) occupied.add(m.box);
  for (const Scene::HostFrame& h : s.hosts) occupied.add({h.box.x, h.box.y, 140, 18});
  return occupied;
}
}  // namespace

void SceneBuilder::placeLabels(Scene& s) const {
  s.labels.clear();
  s.named = true;
  if (s.bundles.empty()) return;
  Occupied occupied = takenIn(s);
  for (size_t k = 0; k < s.bundles.size(); ++k) {
    const ChannelBundle& b = s.bundles[k];
    std::string text = bundleText(b.channels);
    const double w = (text_width_ ? text_width_(text) : 5.5 * double(text.size())) + 4;
    if (const auto at = placeBesideCurve(occupied, b.a, b.control, b.b, w, text_height_))
      s.labels.push_back({k, *at, std::move(text)});
  }
}

Scene SceneBuilder::build(uint32_t position, double progress, bool names) const {
  Scene s = Assembly(*this, position, progress).build();
  if (names) placeLabels(s);
  return s;
}

}  // namespace radar::app
