/* lookup-floor contender: the floor for a monitor that asks the kernel after each change.
 *
 * The shared harness's raw-netlink floor prints a line per recv() and never asks the kernel anything, so it
 * cannot tell whether the internet is reachable. `reach watch` must: after a batch of notifications it waits
 * for the RTNL lock, then looks up the internet's two routes. This program makes exactly the system calls
 * `reach watch` makes per change (strace, 2026-11-24), in C, with no other work:
 *
 *   poll; recv until EAGAIN; ioctl(SIOCGIFCONF); one send of two RTM_GETROUTE requests (the internet's probes,
 *   8.8.8.8 and 2001:4860:4860::8888); two recvs; a line written only when the verdict changed.
 *
 * That is `reach watch` watching the internet, as in the route scenario. (An address target asks more: the
 * matched route's prefix beside the route, and when unrouted, the internet's routes for NAT64.)
 *
 * What `reach watch` takes beyond this program is the Swift library's own work; what this program takes beyond
 * raw-netlink is what asking the kernel costs. Contract (../shared/bench/README.md): one line per noticed change,
 * the first line is "ready". Exits on EPIPE or SIGTERM.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <net/if.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

struct lookup {
    struct nlmsghdr header;
    struct rtmsg route;
    struct rtattr attribute;
    unsigned char address[16];
};

static size_t encode(struct lookup *request, int family, const char *text, unsigned sequence)
{
    size_t length = family == AF_INET ? 4 : 16;
    memset(request, 0, sizeof *request);
    inet_pton(family, text, request->address);
    request->attribute.rta_type = RTA_DST;
    request->attribute.rta_len = RTA_LENGTH(length);
    request->route.rtm_family = family;
    request->route.rtm_dst_len = length * 8;
    request->header.nlmsg_len = NLMSG_LENGTH(sizeof request->route) + RTA_ALIGN(request->attribute.rta_len);
    request->header.nlmsg_type = RTM_GETROUTE;
    request->header.nlmsg_flags = NLM_F_REQUEST;
    request->header.nlmsg_seq = sequence;
    return NLMSG_ALIGN(request->header.nlmsg_len);
}

/* Bit 0 set when IPv4's probe has a route, bit 1 when IPv6's has. */
static int look_up(int requests, unsigned *sequence)
{
    static char sent[2 * sizeof(struct lookup)];
    size_t length = encode((struct lookup *)sent, AF_INET, "8.8.8.8", ++*sequence);
    length += encode((struct lookup *)(sent + length), AF_INET6, "2001:4860:4860::8888", ++*sequence);
    if (send(requests, sent, length, 0) != (ssize_t)length) return -1;
    int verdict = 0;
    static char answer[8192];
    for (int i = 0; i < 2; i++) {
        ssize_t n = recv(requests, answer, sizeof answer, 0);
        if (n < (ssize_t)sizeof(struct nlmsghdr)) return -1;
        if (((struct nlmsghdr *)answer)->nlmsg_type == RTM_NEWROUTE) verdict |= 1 << i;
    }
    return verdict;
}

int main(void)
{
    signal(SIGPIPE, SIG_DFL);
    int changes = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC | SOCK_NONBLOCK, NETLINK_ROUTE);
    int requests = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
    if (changes < 0 || requests < 0) { perror("socket"); return 1; }
    struct sockaddr_nl address = { .nl_family = AF_NETLINK };
    address.nl_groups = RTMGRP_LINK | RTMGRP_IPV4_IFADDR | RTMGRP_IPV6_IFADDR | RTMGRP_IPV4_ROUTE | RTMGRP_IPV6_ROUTE;
    if (bind(changes, (struct sockaddr *)&address, sizeof address) < 0) { perror("bind"); return 1; }

    unsigned sequence = 0;
    int verdict = look_up(requests, &sequence);
    char line[64];
    int length = snprintf(line, sizeof line, "ready verdict=%d\n", verdict);
    if (write(1, line, length) != length) return 1;

    static char buffer[1 << 16];
    struct pollfd wait = { .fd = changes, .events = POLLIN };
    for (;;) {
        if (poll(&wait, 1, -1) < 0 && errno != EINTR) { perror("poll"); return 1; }
        while (recv(changes, buffer, sizeof buffer, MSG_DONTWAIT) > 0 || errno == ENOBUFS) {}
        struct ifconf interfaces = { 0 };   /* SIOCGIFCONF takes RTNL: a change still being applied is done */
        ioctl(changes, SIOCGIFCONF, &interfaces);
        int now = look_up(requests, &sequence);
        if (now == verdict) continue;
        verdict = now;
        length = snprintf(line, sizeof line, "verdict=%d\n", verdict);
        if (write(1, line, length) != length) return 1;
    }
}
