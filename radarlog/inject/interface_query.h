// The ioctl()s that ask the kernel about a network interface through a
// socket (SIOCGIF*, a struct ifreq each): recorded as INTERFACE events and
// answered from the recording in a re-run, whose network namespace has
// only its own loopback (dnsmasq asks about every interface netlink named).
#pragma once

#include <linux/sockios.h>

namespace radar::inject {

inline bool isInterfaceQuery(unsigned long request) {
  switch (request) {
    case SIOCGIFNAME:
    case SIOCGIFINDEX:
    case SIOCGIFFLAGS:
    case SIOCGIFMTU:
    case SIOCGIFADDR:
    case SIOCGIFDSTADDR:
    case SIOCGIFBRDADDR:
    case SIOCGIFNETMASK:
    case SIOCGIFHWADDR:
    case SIOCGIFMETRIC:
    case SIOCGIFTXQLEN:
      return true;
    default:
      return false;
  }
}

}  // namespace radar::inject
