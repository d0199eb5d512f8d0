// How the contents of a message are shown when the user clicks it: text as
// text when it is text, otherwise a hex dump with the printable bytes
// beside it; with a network description, field by field.
#pragma once

#include <string>
#include <vector>

#include "analysis/narrative.h"
#include "binding/binding.h"
#include "trace/trace.h"

namespace radar::app {

// The whole window's text for the message sent by event `send`: who sent
// it to whom on which channel, when, and its contents (decoded by `net`
// when it is not null).
// A user event's data (radar_event): the same window, for the event.
// Without `with_contents`, everything but the decoded contents (which the
// message window shows as a tree of fields, decoded once).
std::string describeMessage(const trace::Trace& trace, const analysis::Narrator& narrator, const netdesc::Binding* net,
                            uint32_t send, bool with_contents = true);

// What hovering over a message shows: its sentence, and the first lines of
// its contents as the message window shows them (decoded by `net` when it
// is not null); of a big message, its first bytes only, undecoded.
std::string messageTip(const trace::Trace& trace, const analysis::Narrator& narrator, const netdesc::Binding* net,
                       uint32_t send);

// Wireshark's Follow Stream for a channel: every message sent on it, both
// ways, in the story's order, each headed by its event, sender and
// receivers, its contents as describeMessage() shows them. At most
// `max_messages` of them (the rest counted).
std::string describeChannel(const trace::Trace& trace, const analysis::Narrator& narrator, const netdesc::Binding* net,
                            uint32_t channel, size_t max_messages = 2000);

}  // namespace radar::app
