// A network description of a recording, with generated names, for the user
// to edit and reuse (`radar netdesc`): every process that sent or received
// a message, how to recognise it (its program, and its place among the
// processes of that program), its ports (the descriptors it used, with
// their direction) and the connections between them.
#pragma once

#include <string>

#include "trace/trace.h"

namespace radar::netdesc {

// The description's text (docs/netdesc.md), names standing on their own.
std::string skeletonOf(const trace::Trace& t);

}  // namespace radar::netdesc
