// Files radar writes for users (exports, cached databases): whole or not
// at all, never written through a link someone left in their place.
#pragma once

#include <cstdio>
#include <functional>
#include <string>

namespace radar::cli {

// Makes `path` by writing a temporary file beside it, renamed over `path`
// once `write` succeeds; removed when it fails. `write` gets the temporary
// file's path (created empty, mode 0644, not through a link).
bool writeThroughTemporary(const std::string& path,
                           const std::function<bool(const std::string& temporary, std::string* error)>& write,
                           std::string* error);

// Removes the temporary file writeThroughTemporary is writing, if any: for
// a command that must end at once (out of memory on another thread), so
// that nothing half written is left beside the file asked for.
void removeTemporaryBeingWritten();

// The same for a stream: `write` writes to the FILE. "-" is standard output.
bool writeStream(const std::string& path, const std::function<bool(std::FILE*, std::string*)>& write,
                 std::string* error);

}  // namespace radar::cli
