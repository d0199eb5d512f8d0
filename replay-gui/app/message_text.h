// How the contents of a message are shown when the user clicks it: text as
// text when it is text, otherwise a hex dump with the printable bytes
// beside it; with a network description, field by field.
#pragma once

#include <string>

#include "apply.h"
#include "trace/narrative.h"
#include "trace/trace.h"

namespace radar::gui {

// The whole window's text for the message sent by event `send`: who sent
// it to whom on which channel, when, and its contents (decoded by `net`
// when it is not null).
std::string describeMessage(const trace::Trace& trace, const trace::Narrator& narrator, const netdesc::Binding* net,
                            uint32_t send);

}  // namespace radar::gui
