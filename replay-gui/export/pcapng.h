// A recording as a packet capture (pcapng) that Wireshark and tshark read:
// every message of every channel as a packet, so that their dissectors,
// display filters and Follow Stream work on pipes and Unix sockets too.
//
// The mapping (docs/exporting.md):
//   one interface per kind of channel and host ("pipe on web1"), its
//   description saying how the kind is carried;
//   TCP and UDP channels keep their real addresses and ports;
//   every other channel (pipe, FIFO, Unix socket, socket pair, terminal)
//   is carried in TCP segments (UDP datagrams for datagram sockets)
//   between a pair of addresses of its own in 127.128.0.0/9:
//   127.128.0.0 + 2*(n) and the next, where n is the channel's number,
//   the first side (the one that connected, where a connect or accept was
//   recorded, else the one that sent first) on port 50000, the other on
//   the port of the protocol --decode-as names (else 50001). Wireshark has no link type
//   for pipes or Unix sockets, and TCP is what its reassembly and Follow
//   Stream work on.
// Sequence and acknowledgement numbers follow the bytes; no handshake is
// made up (a stream starts at its first bytes), and a FIN stands where a
// reader saw the end of file. Bytes the recording did not keep
// (--payload-limit) are the cut-off part of a packet (captured length <
// original length). Each packet names its process in Apple's pcapng
// extension (a Darwin Process Event Block per process image: pid and name;
// the packet's option 0x8001 its index), its direction (outbound for a
// send, inbound for bytes from outside), and in its comment the process,
// pid, event and call; timestamps are the sends' (wall clock).
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>

#include "export/progress.h"
#include "trace/trace.h"

namespace radar::exporting {

struct PcapngOptions {
  // channel number (1-based, as `radar events` shows) or name → TCP/UDP
  // port of the protocol to decode it as.
  std::map<std::string, uint16_t> decode_as;
  std::string application;  // the section's shb_userappl
  Progress progress;
};

struct PcapngCounts {
  uint64_t packets = 0, payload_bytes = 0, streams = 0;
};

// Writes the whole recording to `out`. False with *error when the trace's
// bytes cannot be read or the file cannot be written.
bool writePcapng(const trace::Trace& trace, const PcapngOptions& options, std::FILE* out, PcapngCounts* counts,
                 std::string* error);

// "http" → 80 ...: the protocols --decode-as knows by name, or a port
// number. 0 when neither.
uint16_t decodeAsPort(const std::string& protocol);

}  // namespace radar::exporting
