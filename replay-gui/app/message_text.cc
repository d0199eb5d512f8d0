#include "app/message_text.h"

#include <algorithm>

#include "log/kinds.h"

namespace radar::app {

std::string describeMessage(const trace::Trace& t, const analysis::Narrator& narrator, const netdesc::Binding* net,
                            uint32_t send, bool with_contents) {
  if (send >= t.events.size()) return "No such message.";
  std::string out = narrator.sentence(send) + "\n";
  const bool user = t.events[send].eventKind() == log::Kind::User;
  const auto receivers = narrator.receivers(send);
  if (user) {
    // Data the program gave its event: nobody receives it.
  } else if (receivers.empty()) {
    out += "No recorded process received it.\n";
  } else {
    out += "Received by:";
    for (uint32_t p : receivers) out += " " + t.label(p);
    out += "\n";
  }
  std::string bytes, error, contents;
  if (!t.payload(send, &bytes, &error) ||
      (with_contents && !netdesc::describeContents(net, t, send, &contents, &error)))
    return out + "\nThe contents could not be read: " + error + "\n";
  const auto& e = t.events[send];
  out += "\n" + std::to_string(bytes.size()) + " bytes recorded";
  if (bytes.size() < e.value)
    out += " of " + std::to_string(e.value) + (user ? " given" : " sent") + " (the rest was cut by --payload-limit)";
  out += ":\n\n" + contents;
  return out;
}

std::string messageTip(const trace::Trace& t, const analysis::Narrator& narrator, const netdesc::Binding* net,
                       uint32_t send) {
  if (send >= t.events.size()) return {};
  constexpr size_t kMostLines = 10, kLineWidth = 100;
  constexpr uint64_t kDecodedUpTo = 16 * 1024;  // bigger: the first bytes, not a decode of it all
  std::string out = narrator.sentence(send) + ".";
  std::string contents, error;
  if (t.events[send].value <= kDecodedUpTo) {
    if (!netdesc::describeContents(net, t, send, &contents, &error)) return out + "\n" + error;
  } else {
    std::string_view bytes;
    if (!t.payloadView(send, &bytes, &error)) return out + "\n" + error;
    contents = netdesc::hexDump(bytes.substr(0, 128)) + "...";
  }
  size_t lines = 0;
  for (size_t at = 0; at < contents.size() && lines < kMostLines; ++lines) {
    const size_t end = std::min(contents.find('\n', at), contents.size());
    std::string line = contents.substr(at, end - at);
    if (line.size() > kLineWidth) line = line.substr(0, kLineWidth) + "...";
    out += "\n" + line;
    at = end + 1;
    if (lines + 1 == kMostLines && at < contents.size()) out += "\n...";
  }
  return out;
}

std::string describeChannel(const trace::Trace& t, const analysis::Narrator& narrator, const netdesc::Binding* net,
                            uint32_t channel, size_t max_messages) {
  if (channel >= t.channels.size()) return "No such channel.";
  std::string out = "Channel " + t.channelLabel(channel) + ": every message, both ways, in the story's order.\n";
  size_t shown = 0, total = 0;
  uint64_t bytes_total = 0;
  std::string body;
  for (uint32_t i = 0; i < t.events.size(); ++i) {
    const trace::Event& e = t.events[i];
    if (t.channelOf(i) != channel || log::categoryOf(e.eventKind()) != log::Category::Send ||
        (e.flags & trace::kEventFailed) || !e.value)
      continue;
    ++total;
    bytes_total += e.value;
    if (shown == max_messages) continue;
    ++shown;
    body += "\n── event " + std::to_string(i + 1) + ": " + t.label(e.process);
    const auto receivers = narrator.receivers(i);
    body += receivers.empty() ? std::string(" → nobody recorded") : " →";
    for (uint32_t p : receivers) body += " " + t.label(p);
    body += ", " + std::to_string(e.value) + " bytes ──\n";
    std::string contents, error;
    body += netdesc::describeContents(net, t, i, &contents, &error) ? contents : "(not readable: " + error + ")";
    if (!body.empty() && body.back() != '\n') body += '\n';
  }
  out += std::to_string(total) + " messages, " + std::to_string(bytes_total) + " bytes";
  if (shown < total) out += " (the first " + std::to_string(shown) + " shown)";
  out += ".\n" + body;
  return out;
}

}  // namespace radar::app
