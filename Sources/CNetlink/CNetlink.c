#ifdef __linux__
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <string.h>
#include <netdb.h>
#include <linux/if.h>
#include "CNetlink.h"

// Layouts the Swift parser relies on when it reads fixed headers by offset.
_Static_assert(sizeof(struct nlmsghdr) == 16, "nlmsghdr is 16 bytes");
_Static_assert(sizeof(struct rtattr) == 4, "rtattr is 4 bytes");
_Static_assert(sizeof(struct rtmsg) == 12, "rtmsg is 12 bytes");
_Static_assert(sizeof(struct ifinfomsg) == 16, "ifinfomsg is 16 bytes");
_Static_assert(sizeof(struct ifaddrmsg) == 8, "ifaddrmsg is 8 bytes");
_Static_assert(sizeof(struct nlmsgerr) == 20, "nlmsgerr is 20 bytes");
_Static_assert(sizeof(struct nduseroptmsg) == 16, "nduseroptmsg is 16 bytes");
_Static_assert(offsetof(struct nduseroptmsg, nduseropt_opts_len) == 2, "opts_len at 2");
_Static_assert(offsetof(struct nduseroptmsg, nduseropt_ifindex) == 4, "ifindex at 4");
_Static_assert(offsetof(struct rtmsg, rtm_type) == 7, "rtm_type at 7");
_Static_assert(offsetof(struct rtmsg, rtm_flags) == 8, "rtm_flags at 8");
_Static_assert(offsetof(struct ifinfomsg, ifi_index) == 4, "ifi_index at 4");
_Static_assert(offsetof(struct ifinfomsg, ifi_flags) == 8, "ifi_flags at 8");
_Static_assert(offsetof(struct ifaddrmsg, ifa_index) == 4, "ifa_index at 4");
_Static_assert(sizeof(struct ndmsg) == 12, "ndmsg is 12 bytes");
_Static_assert(offsetof(struct ndmsg, ndm_ifindex) == 4, "ndm_ifindex at 4");
_Static_assert(offsetof(struct ndmsg, ndm_state) == 8, "ndm_state at 8");

uint32_t cnl_iff_up(void) { return IFF_UP; }
uint32_t cnl_iff_loopback(void) { return IFF_LOOPBACK; }
uint32_t cnl_iff_pointopoint(void) { return IFF_POINTOPOINT; }
uint32_t cnl_iff_lower_up(void) { return IFF_LOWER_UP; }
uint8_t cnl_if_oper_unknown(void) { return IF_OPER_UNKNOWN; }
uint8_t cnl_if_oper_dormant(void) { return IF_OPER_DORMANT; }
uint8_t cnl_if_oper_up(void) { return IF_OPER_UP; }
uint8_t cnl_if_oper_down(void) { return IF_OPER_DOWN; }

static uint32_t cnl_group_mask(const unsigned *groups, size_t count) {
    // Legacy bind() group masks: bit (group - 1). All the groups used here are below 32.
    uint32_t mask = 0;
    for (size_t i = 0; i < count; i++) mask |= 1u << (groups[i] - 1);
    return mask;
}

uint32_t cnl_reachability_groups(void) {
    const unsigned groups[] = { RTNLGRP_LINK, RTNLGRP_IPV4_IFADDR, RTNLGRP_IPV6_IFADDR, RTNLGRP_IPV4_ROUTE,
        RTNLGRP_IPV6_ROUTE, RTNLGRP_IPV4_RULE, RTNLGRP_IPV6_RULE, RTNLGRP_ND_USEROPT, RTNLGRP_NEIGH };
    return cnl_group_mask(groups, sizeof(groups) / sizeof(groups[0]));
}

#include <linux/tcp.h>
#include <linux/bpf.h>  // the one user-space header that names the kernel's TCP states

uint32_t cnl_tcp_flow_states(void) {
    return (1u << BPF_TCP_ESTABLISHED) | (1u << BPF_TCP_FIN_WAIT1) | (1u << BPF_TCP_FIN_WAIT2)
        | (1u << BPF_TCP_CLOSE_WAIT) | (1u << BPF_TCP_LAST_ACK) | (1u << BPF_TCP_CLOSING);
}
uint32_t cnl_tcp_info_rtt_offset(void) { return offsetof(struct tcp_info, tcpi_rtt); }
uint32_t cnl_tcp_info_min_rtt_offset(void) { return offsetof(struct tcp_info, tcpi_min_rtt); }
uint32_t cnl_tcp_info_bytes_acked_offset(void) { return offsetof(struct tcp_info, tcpi_bytes_acked); }
uint32_t cnl_tcp_info_bytes_received_offset(void) { return offsetof(struct tcp_info, tcpi_bytes_received); }
uint32_t cnl_tcp_info_delivery_rate_offset(void) { return offsetof(struct tcp_info, tcpi_delivery_rate); }
uint32_t cnl_tcp_info_busy_time_offset(void) { return offsetof(struct tcp_info, tcpi_busy_time); }
// A bit field has no offsetof: tcpi_delivery_rate_app_limited is the first bit of the byte after tcpi_rcv_wscale's.
_Static_assert(offsetof(struct tcp_info, tcpi_rto) == 8, "tcp_info's bit-field byte is at 7");
uint32_t cnl_tcp_info_app_limited_byte(void) { return 7; }
uint8_t cnl_tcp_info_app_limited_mask(void) { return 1; }

int cnl_wake_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }

#include <locale.h>
#include <pthread.h>

static locale_t cnl_utf8_locale = (locale_t)0;
static pthread_once_t cnl_utf8_locale_once = PTHREAD_ONCE_INIT;
static void cnl_make_utf8_locale(void) { cnl_utf8_locale = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0); }

int cnl_getaddrinfo_utf8(const char *name, const struct addrinfo *hints, struct addrinfo **result) {
    pthread_once(&cnl_utf8_locale_once, cnl_make_utf8_locale);
    locale_t utf8 = cnl_utf8_locale;
    struct addrinfo idn_hints = *hints;
    idn_hints.ai_flags |= AI_IDN;
    locale_t previous = utf8 != (locale_t)0 ? uselocale(utf8) : (locale_t)0;
    int code = getaddrinfo(name, NULL, &idn_hints, result);
    if (previous != (locale_t)0) uselocale(previous);
    return code;
}
int cnl_eai_nodata(void) { return EAI_NODATA; }

int cnl_inotify_open(void) { return inotify_init1(IN_NONBLOCK | IN_CLOEXEC); }
uint32_t cnl_inotify_change_mask(void) {
    return IN_CLOSE_WRITE | IN_MODIFY | IN_MOVED_TO | IN_MOVED_FROM | IN_CREATE | IN_DELETE | IN_DELETE_SELF | IN_MOVE_SELF | IN_ATTRIB;
}

uint32_t cnl_inotify_removal_mask(void) { return IN_DELETE | IN_MOVED_FROM; }

void cnl_name_current_thread(const char *name) { (void)pthread_setname_np(pthread_self(), name); }

int cnl_setns_net(int fd) { return setns(fd, CLONE_NEWNET); }

const char *cnl_errno_name(int error) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 32))
    return strerrorname_np(error);
#else
    (void)error;
    return NULL;
#endif
}

const char *cnl_errno_message(int error, char *buffer, size_t length) {
#if defined(__GLIBC__)
    return strerror_r(error, buffer, length);  // the GNU variant: it may return a static string instead
#else
    return strerror_r(error, buffer, length) == 0 ? buffer : "Unknown error";
#endif
}
#endif

int cnl_await_routing_lock(int descriptor) {
    struct ifconf request;
    memset(&request, 0, sizeof request);  // no buffer: the kernel only counts, under the lock
    return ioctl(descriptor, SIOCGIFCONF, &request);
}
