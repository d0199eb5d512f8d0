// struct sockaddr bytes, as people read them: "127.0.0.1:7000",
// "[::1]:7000", "/tmp/socket", "@abstract". Empty when unknown.
#pragma once

#include <string>

namespace radar::log {

std::string formatAddress(const std::string& sockaddr_bytes);

}  // namespace radar::log
