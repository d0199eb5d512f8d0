#include "app/message_text.h"

namespace radar::gui {

std::string describeMessage(const trace::Trace& t, const trace::Narrator& narrator, const netdesc::Binding* net,
                            uint32_t send) {
  if (send >= t.events.size()) return "No such message.";
  std::string out = narrator.sentence(send) + "\n";
  const auto receivers = narrator.receivers(send);
  if (receivers.empty()) {
    out += "No recorded process received it.\n";
  } else {
    out += "Received by:";
    for (uint32_t p : receivers) out += " " + t.processes[p].label();
    out += "\n";
  }
  std::string bytes, error, contents;
  if (!t.payload(send, &bytes, &error) || !netdesc::describeContents(net, t, send, &contents, &error))
    return out + "\nThe contents could not be read: " + error + "\n";
  const auto& e = t.events[send];
  out += "\n" + std::to_string(bytes.size()) + " bytes recorded";
  if (bytes.size() < e.value) out += " of " + std::to_string(e.value) + " sent (the rest was cut by --payload-limit)";
  out += ":\n\n" + contents;
  return out;
}

}  // namespace radar::gui
