// Kernel netlink/rtnetlink macros and constants that Swift cannot import directly,
// exposed as small prefixed inline functions (the CNIOLinux pattern). Linux only.
#ifndef CNETLINK_H
#define CNETLINK_H

#ifdef __linux__
#include <stdint.h>
#include <stddef.h>
#include <sys/socket.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/if_link.h>
#include <linux/if_addr.h>
#include <linux/if_arp.h>
#include <linux/fib_rules.h>
#include <linux/neighbour.h>

// MARK: - Alignment and header sizes

static inline uint32_t cnl_nlmsg_align(uint32_t length) { return NLMSG_ALIGN(length); }
static inline uint32_t cnl_nlmsg_header_length(void) { return NLMSG_HDRLEN; }
static inline uint32_t cnl_rta_align(uint32_t length) { return RTA_ALIGN(length); }
static inline uint32_t cnl_rta_header_length(void) { return RTA_LENGTH(0); }
static inline uint32_t cnl_rtmsg_length(void) { return sizeof(struct rtmsg); }
static inline uint32_t cnl_ifinfomsg_length(void) { return sizeof(struct ifinfomsg); }
static inline uint32_t cnl_ifaddrmsg_length(void) { return sizeof(struct ifaddrmsg); }
static inline uint32_t cnl_fib_rule_hdr_length(void) { return sizeof(struct fib_rule_hdr); }
static inline uint32_t cnl_ndmsg_length(void) { return sizeof(struct ndmsg); }
static inline uint16_t cnl_nla_type_mask(void) { return (uint16_t)(NLA_TYPE_MASK & 0xFFFF); }

// MARK: - Interface flags (linux/if.h names clash with glibc's net/if.h, so they cross as functions)

uint32_t cnl_iff_up(void);
uint32_t cnl_iff_loopback(void);
uint32_t cnl_iff_pointopoint(void);
uint32_t cnl_iff_lower_up(void);
uint8_t cnl_if_oper_unknown(void);
uint8_t cnl_if_oper_dormant(void);
uint8_t cnl_if_oper_up(void);
uint8_t cnl_if_oper_down(void);

// MARK: - Multicast groups of the subscription

/// The rtnetlink groups whose messages can change a reachability answer or a network's identity:
/// links, IPv4/IPv6 addresses, IPv4/IPv6 routes, IPv4/IPv6 policy rules, router advertisement options, and
/// neighbours (a gateway's link-layer address).
uint32_t cnl_reachability_groups(void);

// MARK: - Neighbours (RTM_NEWNEIGH, RTM_DELNEIGH)

/// The neighbour states in which the kernel holds a link-layer address it trusts (the kernel's `NUD_VALID`).
static inline uint16_t cnl_nud_valid(void) {
    return NUD_PERMANENT | NUD_NOARP | NUD_REACHABLE | NUD_PROBE | NUD_STALE | NUD_DELAY;
}

// MARK: - Router advertisement options (RTM_NEWNDUSEROPT)

static inline uint32_t cnl_nduseroptmsg_length(void) { return sizeof(struct nduseroptmsg); }
/// The legacy bind() mask bit of RTNLGRP_LINK: link notifications only.
static inline uint32_t cnl_link_group_mask(void) { return 1u << (RTNLGRP_LINK - 1); }
/// The legacy bind() mask bit of RTNLGRP_ND_USEROPT: ND options the kernel passes on from router advertisements.
static inline uint32_t cnl_nd_useropt_group_mask(void) { return 1u << (RTNLGRP_ND_USEROPT - 1); }
/// ND option types no installed header names: RDNSS (RFC 8106), captive portal (RFC 8910), PREF64 (RFC 8781).
enum { CNL_ND_OPT_RDNSS = 25, CNL_ND_OPT_CAPTIVE_PORTAL = 37, CNL_ND_OPT_PREF64 = 38 };

// MARK: - Wake-ups

/// A non-blocking, close-on-exec eventfd that wakes the monitor's poll.
int cnl_wake_eventfd(void);

// MARK: - Ordering

/// Returns once no routing change holds the kernel's RTNL lock, by asking for the interface list with
/// `SIOCGIFCONF` (which takes that lock) on `descriptor`, any socket of the namespace. 0, or -1 and errno.
int cnl_await_routing_lock(int descriptor);

// MARK: - Resolver (glibc names that need _GNU_SOURCE)

struct addrinfo;

/// getaddrinfo with `AI_IDN` and the calling thread (only) in a UTF-8 locale, so glibc can encode an
/// internationalized name written in UTF-8 whatever the process's locale is.
int cnl_getaddrinfo_utf8(const char *name, const struct addrinfo *hints, struct addrinfo **result);
/// getaddrinfo's `EAI_NODATA`: the name exists but has no address.
int cnl_eai_nodata(void);

// MARK: - Inotify

/// A non-blocking, close-on-exec inotify descriptor.
int cnl_inotify_open(void);
/// The event mask that tells a watched file or directory entry was written, replaced or removed.
uint32_t cnl_inotify_change_mask(void);
/// Names the calling thread (at most 15 bytes), as `ps -L` and debuggers show it; best effort.
void cnl_name_current_thread(const char *name);
/// The inotify events that say a directory entry went away.
uint32_t cnl_inotify_removal_mask(void);

// MARK: - Errors

/// errno's symbolic name (`EACCES`), or NULL where the C library cannot say (glibc before 2.32, musl).
const char *cnl_errno_name(int error);
/// errno's message (`Permission denied`), written into `buffer` or a static string; never NULL.
const char *cnl_errno_message(int error, char *buffer, size_t length);

// MARK: - Socket diagnostics (NETLINK_SOCK_DIAG): every TCP socket's tcp_info

#include <linux/sock_diag.h>
#include <linux/inet_diag.h>

static inline int cnl_netlink_sock_diag(void) { return NETLINK_SOCK_DIAG; }
static inline uint16_t cnl_sock_diag_by_family(void) { return SOCK_DIAG_BY_FAMILY; }
static inline uint32_t cnl_inet_diag_req_v2_length(void) { return sizeof(struct inet_diag_req_v2); }
static inline uint32_t cnl_inet_diag_msg_length(void) { return sizeof(struct inet_diag_msg); }
static inline uint16_t cnl_inet_diag_info(void) { return INET_DIAG_INFO; }
/// The `idiag_ext` bit that asks a dump for each socket's tcp_info.
static inline uint8_t cnl_inet_diag_info_extension(void) { return 1u << (INET_DIAG_INFO - 1); }
/// The legacy bind() mask of the groups that report each closing IPv4 and IPv6 TCP socket's last tcp_info.
static inline uint32_t cnl_tcp_destroy_group_mask(void) {
    return (1u << (SKNLGRP_INET_TCP_DESTROY - 1)) | (1u << (SKNLGRP_INET6_TCP_DESTROY - 1));
}
/// Offsets in struct inet_diag_msg (its socket id begins at 4: ports, addresses, interface, cookie).
static inline uint32_t cnl_inet_diag_msg_state_offset(void) { return offsetof(struct inet_diag_msg, idiag_state); }
static inline uint32_t cnl_inet_diag_msg_source_offset(void) { return offsetof(struct inet_diag_msg, id.idiag_src); }
static inline uint32_t cnl_inet_diag_msg_destination_offset(void) { return offsetof(struct inet_diag_msg, id.idiag_dst); }
static inline uint32_t cnl_inet_diag_msg_cookie_offset(void) { return offsetof(struct inet_diag_msg, id.idiag_cookie); }
static inline uint32_t cnl_inet_diag_req_states_offset(void) { return offsetof(struct inet_diag_req_v2, idiag_states); }
/// The TCP states a dump asks for: established, and those closing after data (FIN_WAIT1/2, CLOSE_WAIT,
/// LAST_ACK, CLOSING), whose tcp_info still says how the flow went.
uint32_t cnl_tcp_flow_states(void);
/// Offsets in struct tcp_info of the fields a quality sample reads (the kernel's layout, which only grows).
uint32_t cnl_tcp_info_rtt_offset(void);
uint32_t cnl_tcp_info_min_rtt_offset(void);
uint32_t cnl_tcp_info_bytes_acked_offset(void);
uint32_t cnl_tcp_info_bytes_received_offset(void);
uint32_t cnl_tcp_info_delivery_rate_offset(void);
uint32_t cnl_tcp_info_busy_time_offset(void);
/// tcpi_delivery_rate_app_limited's byte and bit: the sender ran out of data, so the rate is a floor.
uint32_t cnl_tcp_info_app_limited_byte(void);
uint8_t cnl_tcp_info_app_limited_mask(void);

// MARK: - Namespaces

/// Moves the calling thread into the network namespace open at `fd` (setns with CLONE_NEWNET).
int cnl_setns_net(int fd);

#endif // __linux__
#endif // CNETLINK_H
