// The inode of the Unix socket connected to a socket, from the kernel's
// sock_diag interface (what `ss -x` uses): what pairs the two ends of a
// Unix socket across the logs of two processes. Raw system calls and no
// memory allocation: the interposer asks it too.
#pragma once

#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>
#include <sys/socket.h>

#include <cstdint>

#include "log/sys.h"

namespace radar::log {

// Asked on `netlink`, a NETLINK_SOCK_DIAG socket; 0 when unknown. A socket
// shared by threads may carry another's reply: it asks again until the
// reply is about `ino` (each request gets one reply: nobody waits forever).
inline uint64_t unixPeerInode(int netlink, uint64_t ino) {
  struct {
    nlmsghdr nlh;
    unix_diag_req req;
  } msg{};
  msg.nlh.nlmsg_len = sizeof(msg);
  msg.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
  msg.nlh.nlmsg_flags = NLM_F_REQUEST;
  msg.req.sdiag_family = AF_UNIX;
  msg.req.udiag_ino = static_cast<uint32_t>(ino);
  msg.req.udiag_states = ~0u;
  msg.req.udiag_show = UDIAG_SHOW_PEER;
  msg.req.udiag_cookie[0] = msg.req.udiag_cookie[1] = ~0u;
  for (int attempt = 0; attempt < 8; ++attempt) {
    if (sys::raw(SYS_sendto, netlink, reinterpret_cast<long>(&msg), sizeof(msg), 0, 0, 0) < 0) return 0;
    alignas(nlmsghdr) uint8_t buf[2048];
    const long n = sys::raw(SYS_recvfrom, netlink, reinterpret_cast<long>(buf), sizeof(buf), 0, 0, 0);
    if (n < static_cast<long>(sizeof(nlmsghdr))) return 0;
    auto* h = reinterpret_cast<nlmsghdr*>(buf);
    if (h->nlmsg_type == NLMSG_ERROR) return 0;  // whoever's it was, nobody learns a peer
    if (h->nlmsg_type != SOCK_DIAG_BY_FAMILY || h->nlmsg_len > static_cast<uint32_t>(n) ||
        h->nlmsg_len < NLMSG_LENGTH(sizeof(unix_diag_msg)))
      continue;
    auto* m = static_cast<unix_diag_msg*>(NLMSG_DATA(h));
    if (m->udiag_ino != static_cast<uint32_t>(ino)) continue;
    int len = static_cast<int>(h->nlmsg_len - NLMSG_LENGTH(sizeof(*m)));
    for (auto* a = reinterpret_cast<rtattr*>(m + 1); RTA_OK(a, len); a = RTA_NEXT(a, len))
      if (a->rta_type == UNIX_DIAG_PEER) return *static_cast<uint32_t*>(RTA_DATA(a));
    return 0;
  }
  return 0;
}

}  // namespace radar::log
