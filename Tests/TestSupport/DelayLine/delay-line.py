"""A delay line between two namespaces: two tun devices, each packet read from one held DELAY ms, then written to
the other. This kernel has no netem; tbf shapes the rate, this the round trip.

usage: delay-line.py NEAR FAR FAR_NAMESPACE DELAY_MS
Creates tun NEAR in the namespace it runs in and tun FAR, moved into FAR_NAMESPACE; prints 'ready' once both are
attached, then forwards until killed. DELAY_MS is one way: the round trip is twice it.
"""
import collections, fcntl, os, select, struct, subprocess, sys, time

TUNSETIFF, IFF_TUN, IFF_NO_PI = 0x400454CA, 0x0001, 0x1000


def attach(name):
    fd = os.open('/dev/net/tun', os.O_RDWR | os.O_NONBLOCK)
    fcntl.ioctl(fd, TUNSETIFF, struct.pack('16sH', name.encode(), IFF_TUN | IFF_NO_PI))
    return fd


near_name, far_name, far_namespace, delay_ms = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4])
near, far = attach(near_name), attach(far_name)
subprocess.run(['ip', 'link', 'set', far_name, 'netns', far_namespace], check=True)
delay = delay_ms / 1000
# One queue per direction: the delay is the same for every packet, so each queue is in time order.
queues = {near: collections.deque(), far: collections.deque()}
other = {near: far, far: near}
print('ready', flush=True)
while True:
    now = time.monotonic()
    due = [q[0][0] for q in queues.values() if q]
    timeout = max(0.0, min(due) - now) if due else None
    readable, _, _ = select.select([near, far], [], [], timeout)
    now = time.monotonic()
    for fd in readable:
        while True:
            try:
                packet = os.read(fd, 65536)
            except BlockingIOError:
                break
            queues[fd].append((now + delay, packet))
    for source, queue in queues.items():
        while queue and queue[0][0] <= now:
            _, packet = queue.popleft()
            try:
                os.write(other[source], packet)
            except OSError:
                pass  # the device is down or its queue full: the packet is lost, as on a link
