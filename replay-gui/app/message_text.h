// How the contents of a message are shown when the user clicks it: text as
// text when it is text, otherwise a hex dump with the printable bytes
// beside it. (A netdesc description, when given, decodes field by field.)
#pragma once

#include <string>

#include "narrative.h"
#include "trace.h"

namespace radar::gui {

// True when the bytes read as text: valid UTF-8, no control characters but
// tab, newline and carriage return.
bool looksLikeText(const std::string& bytes);
// 16 bytes a line: offset, hex, printable characters.
std::string hexDump(const std::string& bytes, size_t limit = 64 * 1024);
// The whole window's text for the message sent by event `send`: who sent
// it to whom on which channel, when, and its contents.
std::string describeMessage(const replay::Trace& trace, const replay::Narrator& narrator, uint32_t send);

}  // namespace radar::gui
