#include "app/scene.h"

#include <fcntl.h>
#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <tuple>
#include <unordered_map>

namespace radar::gui {

using trace::DisplayState;
using trace::Event;
using trace::Kind;

const ProcessBox* Scene::box(uint32_t process) const {
  for (const auto& b : processes)
    if (b.process == process) return &b;
  return nullptr;
}

uint32_t Scene::messageAt(Point p) const {
  // The last drawn is on top.
  for (auto it = messages.rbegin(); it != messages.rend(); ++it) {
    Rect r = it->box;
    r.x -= 2, r.y -= 2, r.w += 4, r.h += 4;  // small targets: a little slack
    if (r.contains(p)) return it->send;
  }
  return kNone;
}

uint32_t Scene::processAt(Point p) const {
  for (auto it = processes.rbegin(); it != processes.rend(); ++it)
    if (it->box.contains(p)) return it->process;
  return kNone;
}

namespace {
// Where each process image is drawn: a process and the images it exec's
// into share one place (a chain of images takes one cell); chains that
// share channels are placed near each other (assignCells).
struct Placement {
  std::vector<uint32_t> cell;  // by process image
  uint32_t cells = 1, columns = 1;
};

Placement placeImages(const trace::Trace& t) {
  const uint32_t n = static_cast<uint32_t>(t.processes.size());
  std::vector<uint32_t> chain(n, kNone);
  std::vector<Lifetime> lifetimes;
  std::vector<bool> has_previous(n, false);
  for (const auto& q : t.processes)
    if (q.next_image < n) has_previous[q.next_image] = true;
  for (uint32_t p = 0; p < n; ++p) {
    if (chain[p] != kNone || has_previous[p]) continue;  // reached from its first image
    const uint32_t id = static_cast<uint32_t>(lifetimes.size());
    Lifetime life{~0u, 0};
    bool open_end = false;
    for (uint32_t image = p; image != kNone && chain[image] == kNone; image = t.processes[image].next_image) {
      chain[image] = id;
      const auto& proc = t.processes[image];
      if (proc.first_event == kNone) {
        open_end = true;  // exec'd into and nothing recorded: shown to the end (display.cc)
        continue;
      }
      life.first = std::min(life.first, proc.first_event);
      life.last = std::max(life.last, proc.last_event);
      open_end = proc.end == trace::Process::End::Unknown;
    }
    if (life.first == ~0u)
      life = {~0u - 1, ~0u - 1};  // never shown: a cell nobody else needs
    else if (open_end)
      life.last = ~0u - 1;  // never ended: keeps its place to the end
    lifetimes.push_back(life);
  }
  for (uint32_t p = 0; p < n; ++p)
    if (chain[p] == kNone) {  // a cycle of next images (damaged logs): its own cell
      chain[p] = static_cast<uint32_t>(lifetimes.size());
      lifetimes.push_back({~0u - 1, ~0u - 1});
    }
  // Chains are connected by the channels they share, a weight each. A
  // channel held by very many (a listening socket every worker inherits)
  // says little about who talks to whom, and would cost pairs by the square.
  constexpr size_t kMostHolders = 16;
  std::unordered_map<uint32_t, std::vector<uint32_t>> holders;  // channel -> chains
  for (const auto& ep : t.endpoints)
    if (ep.process < n && ep.channel != kNone) holders[ep.channel].push_back(chain[ep.process]);
  std::map<std::pair<uint32_t, uint32_t>, double> weight;
  for (auto& [channel, chains] : holders) {
    std::sort(chains.begin(), chains.end());
    chains.erase(std::unique(chains.begin(), chains.end()), chains.end());
    if (chains.size() < 2 || chains.size() > kMostHolders) continue;
    for (size_t i = 0; i < chains.size(); ++i)
      for (size_t j = i + 1; j < chains.size(); ++j) weight[{chains[i], chains[j]}] += 1;
  }
  Neighbours neighbours(lifetimes.size());
  for (const auto& [pair, w] : weight) {
    neighbours[pair.first].push_back({pair.second, w});
    neighbours[pair.second].push_back({pair.first, w});
  }
  uint32_t needed = 0;
  for (uint32_t s : assignSlots(lifetimes)) needed = std::max(needed, s + 1);
  Placement out;
  out.columns = GridLayout(needed).columns();
  const std::vector<uint32_t> cells = assignCells(lifetimes, neighbours, out.columns);
  out.cell.resize(n);
  for (uint32_t p = 0; p < n; ++p) {
    out.cell[p] = cells[chain[p]];
    out.cells = std::max(out.cells, out.cell[p] + 1);
  }
  return out;
}
}  // namespace

SceneBuilder::SceneBuilder(const trace::Trace& trace, const trace::DisplayModel& display)
    : t_(trace), display_(display), grid_(1) {
  Placement placement = placeImages(trace);
  slot_ = std::move(placement.cell);
  grid_ = GridLayout(placement.cells, placement.columns);
  for (uint32_t k = 0; k < t_.endpoints.size(); ++k) {
    const auto& ep = t_.endpoints[k];
    if (ep.process == kNone || ep.channel == kNone || !reads(k)) continue;
    end_by_process_channel_.try_emplace(uint64_t{ep.process} << 32 | ep.channel, k);
  }
}

namespace {
// Sockets go both ways; pipes, FIFOs, terminals and devices as opened.
bool isSocket(log::ChannelType t) {
  using T = log::ChannelType;
  return t == T::UnixStream || t == T::UnixDgram || t == T::UnixSeqpacket || t == T::Tcp || t == T::Udp ||
         t == T::OtherSocket;
}
}  // namespace

bool SceneBuilder::reads(uint32_t endpoint) const {
  const auto& ep = t_.endpoints[endpoint];
  return isSocket(ep.type) || (ep.access & O_ACCMODE) != O_WRONLY;
}

bool SceneBuilder::writes(uint32_t endpoint) const {
  const auto& ep = t_.endpoints[endpoint];
  return isSocket(ep.type) || (ep.access & O_ACCMODE) != O_RDONLY;
}

uint32_t SceneBuilder::receivingEnd(uint32_t process, uint32_t channel) const {
  auto it = end_by_process_channel_.find(uint64_t{process} << 32 | channel);
  return it == end_by_process_channel_.end() ? kNone : it->second;
}

Rect SceneBuilder::boxOf(uint32_t process) const {
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

void SceneBuilder::moveBox(uint32_t process, Point top_left) { moved_[process] = top_left; }

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

Scene SceneBuilder::build(uint32_t position, double progress) const {
  const uint32_t n = static_cast<uint32_t>(t_.events.size());
  position = std::min(position, n);
  Scene s;
  s.position = position;
  s.progress = std::clamp(progress, 0.0, 1.0);
  s.bounds = bounds();
  const DisplayState after = display_.stateAt(position);
  const bool animating = position > 0 && s.progress < 1;
  DisplayState before;
  if (position > 0) {
    s.event = position - 1;
    if (animating) before = display_.stateAt(position - 1);
  }
  const Event* ev = s.event == kNone ? nullptr : &t_.events[s.event];
  const auto category = ev ? log::categoryOf(ev->eventKind()) : log::Category::Annotation;

  // Processes: those alive after the event; while it is shown, also one
  // that leaves with it.
  std::set<uint32_t> shown(after.alive.begin(), after.alive.end());
  if (animating) shown.insert(before.alive.begin(), before.alive.end());
  if (animating) shown.insert(ev->process);
  std::set<uint32_t> blocked;
  for (const auto& b : after.blocked) blocked.insert(b.process);
  std::map<uint32_t, size_t> index;
  for (uint32_t p : shown) {
    const auto& proc = t_.processes[p];
    ProcessBox b;
    b.process = p;
    b.box = boxOf(p);
    b.name = proc.name;
    b.pid = proc.pid;
    b.active = animating && ev && ev->process == p;
    b.blocked = blocked.count(p) != 0;
    b.ending = !std::binary_search(after.alive.begin(), after.alive.end(), p);
    index[p] = s.processes.size();
    s.processes.push_back(b);
  }
  // Deadlocks: drawn once every process of the cycle is in the call it
  // never returns from (its last event: the blocked call, or the last it
  // made before it).
  for (const auto& f : t_.findings) {
    if (f.kind != trace::Finding::Kind::Deadlock || f.events.empty()) continue;
    const uint32_t formed = *std::max_element(f.events.begin(), f.events.end());
    if (position <= formed) continue;
    for (const auto& [from, to] : f.waits_for)
      if (index.count(from) && index.count(to)) s.waits.push_back({from, to});
  }
  // Ports: a channel a process has open, however many descriptors it has
  // for it (dup'd, inherited twice); and the channels between processes.
  std::set<std::pair<uint32_t, uint32_t>> in_ports, out_ports;  // (process, channel)
  for (uint32_t ep : after.open) {
    const auto& end = t_.endpoints[ep];
    auto it = index.find(end.process);
    if (it == index.end()) continue;
    if (reads(ep) && in_ports.insert({end.process, end.channel}).second) ++s.processes[it->second].inputs;
    if (writes(ep) && out_ports.insert({end.process, end.channel}).second) ++s.processes[it->second].outputs;
  }
  {
    std::map<uint32_t, std::pair<std::vector<uint32_t>, std::vector<uint32_t>>> by_channel;  // writers, readers
    for (const auto& [p, c] : out_ports) by_channel[c].first.push_back(p);
    for (const auto& [p, c] : in_ports) by_channel[c].second.push_back(p);
    std::set<std::tuple<uint32_t, uint32_t, uint32_t>> done;
    for (const auto& [c, ends] : by_channel)
      for (uint32_t w : ends.first)
        for (uint32_t r : ends.second) {
          if (w == r) continue;
          const bool both = in_ports.count({w, c}) && out_ports.count({r, c});
          const auto key = both ? std::make_tuple(c, std::min(w, r), std::max(w, r)) : std::make_tuple(c, w, r);
          if (!done.insert(key).second) continue;
          const Rect& from = s.processes[index[w]].box;
          const Rect& to = s.processes[index[r]].box;
          // Between the nearest borders: never across a box of its own.
          s.channels.push_back({c, w, r, borderToward(from, to.center()), borderToward(to, from.center()), both});
        }
  }

  // Ports in use: an output port while a message it sent is on its way or
  // queued, an input port while messages wait in front of it.
  struct Pending {
    const trace::QueuedMessage* m;
    uint32_t in_end;
    MessageBox::State state;
  };
  std::vector<Pending> pending;
  std::map<uint32_t, std::set<uint32_t>> ins, outs;  // process -> endpoints
  auto note = [&](const trace::QueuedMessage& m, MessageBox::State st) {
    const Event& send = t_.events[m.send];
    if (send.endpoint != kNone && index.count(send.process)) outs[send.process].insert(send.endpoint);
    uint32_t in_end = kNone;
    if (m.to_process != kNone && index.count(m.to_process)) {
      in_end = receivingEnd(m.to_process, t_.endpoints[send.endpoint].channel);
      if (in_end != kNone) ins[m.to_process].insert(in_end);
    }
    pending.push_back({&m, in_end, st});
  };
  for (const auto& m : after.queued) {
    if (m.send == s.event && animating)
      note(m, MessageBox::State::Travelling);
    else
      note(m, MessageBox::State::Queued);
  }
  // What the event being shown takes off a queue goes into the process.
  if (animating && category == log::Category::Receive) {
    for (const auto& m : before.queued) {
      auto it = std::lower_bound(after.queued.begin(), after.queued.end(), m.send,
                                 [](const trace::QueuedMessage& q, uint32_t v) { return q.send < v; });
      if (it == after.queued.end() || it->send != m.send) note(m, MessageBox::State::Consumed);
    }
  }
  if (animating && ev->endpoint != kNone) {
    if (category == log::Category::Send) outs[ev->process].insert(ev->endpoint);
    if (category == log::Category::Receive) ins[ev->process].insert(ev->endpoint);
  }
  std::map<uint32_t, Point> port_at;  // endpoint -> where its port is
  std::map<uint32_t, size_t> port_index;
  for (int side = 0; side < 2; ++side) {
    for (const auto& [p, ends] : side == 0 ? ins : outs) {
      const Rect& box = s.processes[index[p]].box;
      uint32_t k = 0;
      for (uint32_t ep : ends) {
        PortMark mark{p, ep, side == 0, portPosition(box, side == 0, k++, static_cast<uint32_t>(ends.size()))};
        port_at[ep * 2 + side] = mark.at;
        port_index[ep * 2 + side] = s.ports.size();
        s.ports.push_back(mark);
      }
    }
  }

  // Messages: queued in send order in front of their input port (the head
  // is received next); the one being sent travels to the end of its queue.
  std::map<uint32_t, uint32_t> queue_length;    // input endpoint -> messages so far
  std::map<uint32_t, uint32_t> waiting_length;  // output endpoint -> messages waiting for nobody on screen
  std::vector<MessageBox> travelling;
  for (const Pending& q : pending) {
    const Event& send = t_.events[q.m->send];
    MessageBox mb;
    mb.send = q.m->send;
    mb.to_process = q.m->to_process;
    mb.state = q.state;
    const auto out_port = port_at.find(send.endpoint * 2 + 1);
    const Point from = out_port != port_at.end()   ? out_port->second
                       : index.count(send.process) ? s.processes[index[send.process]].box.center()
                                                   : Point{};
    if (q.in_end == kNone) {
      // Nobody on screen will receive it (none recorded, or not started
      // yet): it waits outside the sender, in send order, as a queue does.
      const uint32_t slot = waiting_length[send.endpoint]++;
      if (slot >= kMaxQueueDrawn) {
        if (const auto at = port_index.find(send.endpoint * 2 + 1); at != port_index.end())
          ++s.ports[at->second].hidden;
        continue;
      }
      mb.box = waitingSlot(from, slot);
      s.messages.push_back(mb);
      continue;
    }
    const Point in = port_at[q.in_end * 2];
    if (q.state == MessageBox::State::Consumed) {
      // From the head of the queue into the box.
      const Rect head = queueSlot(in, 0);
      const Point c = along({head.x, head.y}, {in.x + 4, head.y}, s.progress);
      mb.box = {c.x, c.y, geometry::kMessageSize, geometry::kMessageSize};
      s.messages.push_back(mb);
      continue;
    }
    const uint32_t slot = queue_length[q.in_end]++;
    if (slot >= kMaxQueueDrawn) {
      ++s.ports[port_index[q.in_end * 2]].hidden;
      continue;
    }
    const Rect target = queueSlot(in, slot);
    if (q.state == MessageBox::State::Travelling) {
      const Point start{from.x, from.y - geometry::kMessageSize / 2};
      const Point c = along(start, {target.x, target.y}, s.progress);
      mb.box = {c.x, c.y, geometry::kMessageSize, geometry::kMessageSize};
      travelling.push_back(mb);
    } else {
      mb.box = target;
      s.messages.push_back(mb);
    }
  }
  // Those on their way are drawn last, over the queues.
  s.messages.insert(s.messages.end(), travelling.begin(), travelling.end());
  return s;
}

}  // namespace radar::gui
