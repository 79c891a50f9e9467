import Foundation
import TestSupport

/// A `reach serve` started by a test (on the host, or inside a test network), and the Python clients the serve
/// tests talk to it with: plain HTTP, the Prometheus text parser, an `/events` reader, hostile clients and
/// Prometheus' query API.
final class ServeClient: @unchecked Sendable {
    let process: Subprocess
    /// `127.0.0.1:PORT`, the address the server printed.
    let address: String
    let errors = LineCollector()
    private let network: TestNetwork?

    /// Starts `reach serve ARGUMENTS --listen ADDRESS:0` (with `environment`'s `NAME=value`s) and waits for the
    /// line saying where it listens.
    init(
        _ arguments: [String], in network: TestNetwork? = nil, environment: [String] = [], listening host: String = "127.0.0.1"
    ) throws {
        self.network = network
        let command =
            (environment.isEmpty ? [] : ["env"] + environment) + [ReachBinary.path, "serve"] + arguments
            + ["--listen", "\(host):0"]
        process =
            try network?.start(command, errors: errors.pipe) ?? Subprocess(command, standardError: errors.pipe)
        guard let line = errors.waitForLine(timeout: 30, where: { $0.contains("serving http") }),
            let start = line.range(of: "://")?.upperBound, let end = line[start...].firstIndex(of: "/")
        else {
            process.send(SIGKILL)
            _ = process.wait()
            throw CommandError(
                command: command,
                result: CommandResult(status: -1, standardOutput: "", standardError: errors.lines.joined(separator: "\n")))
        }
        address = String(line[start..<end])
    }

    /// Stops the server with SIGTERM and returns how it ended.
    @discardableResult
    func stop(_ signal: Int32 = SIGTERM) -> Subprocess.Termination {
        process.send(signal)
        return process.wait()
    }

    /// The server's resident memory in KiB, from `/proc` (`ip netns exec` execs it, so the pid is the server's).
    var residentKiB: Int? {
        guard let status = try? TestFile.text("/proc/\(process.pid)/status") else { return nil }
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmRSS:") }
        return line.flatMap { Int($0.split(separator: " ")[1]) }
    }

    /// A bcrypt hash of `password` (cost 10), as `htpasswd -nbBC 10` makes them, from Python's crypt.
    static func bcrypt(_ password: String) throws -> String {
        try Command.run(
            [
                "/usr/bin/python3", "-W", "ignore", "-c",
                "import crypt; print(crypt.crypt('\(password)', crypt.mksalt(crypt.METHOD_BLOWFISH, rounds=1024)))",
            ], check: true
        ).standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Runs a mode of the Python client (where the server runs) and decodes the JSON object it prints.
    func python(_ mode: String, _ arguments: [String] = []) throws -> [String: Any] {
        let command = TestPython.command(["-c", Self.script, mode] + arguments)
        let result = try network?.run(command) ?? Command.run(command)
        guard result.status == 0, let data = result.lines.last?.data(using: .utf8),
            let object = try JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { throw CommandError(command: [mode] + arguments, result: result) }
        return object
    }

    /// The exposition's samples of `name`, each with its labels but `target`, and its value.
    func samples(of name: String) throws -> [(labels: [String: String], value: Double)] {
        Self.samples(in: try python("exposition", [address])).filter { $0.name == name }.map { sample in
            var labels = sample.labels
            labels["target"] = nil
            return (labels, sample.value)
        }
    }

    /// Every sample the `exposition` mode decoded: its name, labels and value.
    static func samples(in exposition: [String: Any]) -> [(name: String, labels: [String: String], value: Double)] {
        (exposition["samples"] as? [[Any]] ?? []).compactMap { sample in
            guard sample.count == 3, let name = sample[0] as? String, let labels = sample[1] as? [String: String],
                let value = sample[2] as? Double
            else { return nil }
            return (name, labels, value)
        }
    }

    /// `METHOD /path` on the server: status, headers (lower-cased names) and body.
    func request(_ path: String, method: String = "GET") throws -> (status: Int, headers: [String: String], body: String) {
        let answer = try python("request", [address, method, path])
        return (answer["status"] as? Int ?? -1, answer["headers"] as? [String: String] ?? [:], answer["body"] as? String ?? "")
    }

    /// Starts an `/events` reader that prints each event's JSON on a line, then `END` when the server ends the stream.
    func startEventReader(into lines: LineCollector) throws -> Subprocess {
        let command = TestPython.command(["-u", "-c", Self.script, "events", address])
        return try network?.start(command, output: lines.pipe) ?? Subprocess(command, standardOutput: lines.pipe)
    }

    /// The client modes, one script so each test names what it does in one word.
    static let script = #"""
        import json, os, resource, socket, sys, time, urllib.parse, urllib.request, http.client

        def split(address):
            host, port = address.rsplit(':', 1)
            return host.strip('[]'), int(port)

        def request(address, method, path):
            connection = http.client.HTTPConnection(*split(address), timeout=10)
            connection.request(method, path)
            answer = connection.getresponse()
            body = answer.read().decode()
            print(json.dumps({'status': answer.status, 'headers': {k.lower(): v for k, v in answer.getheaders()}, 'body': body}))

        def holdscrape(address, other, path):
            # A scrape of `path` whose client never reads (a receive buffer of 2 KiB), then one from `other`, then the
            # first closed and one more, retried for 5 s while the server has not yet seen the close: their statuses.
            def status(at):
                connection = http.client.HTTPConnection(*split(at), timeout=10)
                connection.request('GET', path)
                answer = connection.getresponse()
                answer.read()
                return answer.status
            held = socket.socket()
            held.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
            held.connect(split(address))
            held.sendall(('GET %s HTTP/1.1\r\nHost: x\r\n\r\n' % path).encode())
            time.sleep(0.5)
            beside = status(other)
            held.close()
            end, after = time.time() + 5, 0
            while after != 200 and time.time() < end:
                after = status(address)
            print(json.dumps({'beside': beside, 'after': after}))

        def exposition(address):
            # Parsed by the Prometheus client library's own parser; names, labels and series checked by its rules.
            import re
            from prometheus_client.parser import text_string_to_metric_families
            connection = http.client.HTTPConnection(*split(address), timeout=10)
            connection.request('GET', '/metrics')
            answer = connection.getresponse()
            text = answer.read().decode()
            problems, seen, samples = [], set(), []
            names = re.compile(r'^[a-zA-Z_:][a-zA-Z0-9_:]*$')
            labels = re.compile(r'^[a-zA-Z_][a-zA-Z0-9_]*$')
            typed = [line.split()[2] for line in text.splitlines() if line.startswith('# TYPE ')]
            if len(typed) != len(set(typed)):
                problems.append('a TYPE line repeats')
            families = list(text_string_to_metric_families(text))
            for family in families:
                if family.type == 'unknown':
                    problems.append('no TYPE for ' + family.name)
                for sample in family.samples:
                    if not names.match(sample.name):
                        problems.append('bad name ' + sample.name)
                    for label in sample.labels:
                        if not labels.match(label) or label.startswith('__'):
                            problems.append('bad label %s on %s' % (label, sample.name))
                    key = (sample.name, tuple(sorted(sample.labels.items())))
                    if key in seen:
                        problems.append('duplicate series %s %s' % key)
                    seen.add(key)
                    samples.append([sample.name, sample.labels, sample.value])
            print(json.dumps({'contentType': answer.getheader('Content-Type'), 'problems': problems,
                              'families': {f.name: f.type for f in families}, 'samples': samples}))

        def events(address):
            connection = http.client.HTTPConnection(*split(address), timeout=600)
            connection.request('GET', '/events')
            answer = connection.getresponse()
            print('STATUS %d %s' % (answer.status, answer.getheader('Content-Type')))
            while True:
                line = answer.fp.readline()
                if not line:
                    break
                line = line.decode().rstrip('\n')
                if line.startswith('data: '):
                    print(line[len('data: '):])
            print('END')

        def hostile(address, timeout, silent):
            # 1,000 silent connections, a slowloris, an oversized request line and non-HTTP bytes; then a good
            # client must still be answered.
            timeout, silent = float(timeout), int(silent)
            resource.setrlimit(resource.RLIMIT_NOFILE, (silent + 512, silent + 512))
            host, port = split(address)
            result = {}
            idle = []
            for _ in range(silent):
                s = socket.create_connection((host, port), timeout=10)
                idle.append(s)
            result['silentOpened'] = len(idle)
            started = time.time()
            connection = http.client.HTTPConnection(host, port, timeout=10)
            connection.request('GET', '/metrics')
            result['answeredBesideSilent'] = connection.getresponse().status
            connection.close()

            def closed_by_server(s, wait):
                s.settimeout(wait)
                try:
                    while True:
                        data = s.recv(65536)
                        if not data:
                            return True
                except ConnectionResetError:
                    return True
                except socket.timeout:
                    return False

            # Every silent connection is closed: the oldest to make room, the rest at the request timeout.
            deadline = started + timeout + 3
            result['silentClosed'] = sum(closed_by_server(s, max(0.01, deadline - time.time())) for s in idle)
            for s in idle:
                s.close()

            slow = socket.create_connection((host, port), timeout=10)
            started = time.time()
            slow.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\n')
            closed = False
            while time.time() - started < timeout + 3:
                try:
                    slow.sendall(b'X')
                except (BrokenPipeError, ConnectionResetError):
                    closed = True
                    break
                if closed_by_server(slow, 0.2):
                    closed = True
                    break
            result['slowlorisClosedAfter'] = round(time.time() - started, 2) if closed else None
            slow.close()

            def first_line_and_close(name, payload):
                s = socket.create_connection((host, port), timeout=10)
                try:
                    s.sendall(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass
                try:
                    result[name + 'Answer'] = s.recv(100).decode(errors='replace').split('\r\n')[0]
                except ConnectionResetError:
                    result[name + 'Answer'] = 'reset'
                result[name + 'Closed'] = closed_by_server(s, 3)
                s.close()

            first_line_and_close('oversized', b'GET /' + b'a' * 100000 + b' HTTP/1.1\r\nHost: x\r\n\r\n')
            first_line_and_close('garbage', bytes(range(256)) * 8)

            connection = http.client.HTTPConnection(host, port, timeout=10)
            connection.request('GET', '/status')
            result['answeredAfter'] = connection.getresponse().status
            print(json.dumps(result))

        def nonreader(address, fifo):
            # Asks for /events with a small receive buffer and reads nothing until the test writes to `fifo`;
            # then reads what is there and says whether the server had closed the stream.
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(split(address))
            s.sendall(b'GET /events HTTP/1.1\r\nHost: x\r\n\r\n')
            print('connected', flush=True)
            with open(fifo) as go:
                go.read()
            s.settimeout(5)
            received, ended = 0, False
            try:
                while True:
                    data = s.recv(65536)
                    if not data:
                        ended = True
                        break
                    received += len(data)
            except ConnectionResetError:
                ended = True
            except socket.timeout:
                pass
            print(json.dumps({'received': received, 'closedByServer': ended}), flush=True)

        def query(prometheus, expression, want, timeout):
            # Prometheus' own HTTP API, asked until the expression's one value is `want`.
            deadline, last = time.time() + float(timeout), None
            while time.time() < deadline:
                try:
                    url = 'http://%s/api/v1/query?%s' % (prometheus, urllib.parse.urlencode({'query': expression}))
                    with urllib.request.urlopen(url, timeout=5) as answer:
                        last = [sample['value'][1] for sample in json.load(answer)['data']['result']]
                    if last == [want]:
                        break
                except Exception as error:
                    last = str(error)
                time.sleep(0.2)
            print(json.dumps({'values': last}))

        def history(prometheus, expression):
            url = 'http://%s/api/v1/query?%s' % (prometheus, urllib.parse.urlencode({'query': expression}))
            with urllib.request.urlopen(url, timeout=5) as answer:
                result = json.load(answer)['data']['result']
            values = [value for _, value in result[0]['values']] if result else []
            print(json.dumps({'values': values}))

        def text(address):
            # The exposition as it is, for promtool.
            connection = http.client.HTTPConnection(*split(address), timeout=10)
            connection.request('GET', '/metrics')
            print(json.dumps({'text': connection.getresponse().read().decode()}))

        def compressed(address):
            # The exposition asked for with gzip, as Prometheus asks, decompressed, beside a plain one.
            import gzip
            connection = http.client.HTTPConnection(*split(address), timeout=10)
            connection.request('GET', '/metrics', headers={'Accept-Encoding': 'gzip'})
            answer = connection.getresponse()
            body = answer.read()
            encoding = answer.getheader('Content-Encoding')
            unpacked = gzip.decompress(body).decode() if encoding == 'gzip' else body.decode()
            connection.request('GET', '/metrics')
            plain = connection.getresponse().read().decode()
            names = lambda text: sorted(line.split(' ')[0] for line in text.splitlines() if line and not line.startswith('#'))
            print(json.dumps({'encoding': encoding, 'bytes': len(body), 'plainBytes': len(plain.encode()),
                              'sameSeries': names(unpacked) == names(plain), 'series': len(names(plain))}))

        def tls(address, path, ca, cert, key, user, password):
            # One request over TLS; '-' leaves out the client certificate or the password.
            import base64, ssl
            context = ssl.create_default_context(cafile=ca)
            if cert != '-':
                context.load_cert_chain(cert, key)
            headers = {}
            if user != '-':
                headers['Authorization'] = 'Basic ' + base64.b64encode(('%s:%s' % (user, password)).encode()).decode()
            try:
                connection = http.client.HTTPSConnection(*split(address), timeout=10, context=context)
                connection.request('GET', path, headers=headers)
                answer = connection.getresponse()
                subject = dict(field[0] for field in connection.sock.getpeercert()['subject'])
                print(json.dumps({'status': answer.status, 'body': answer.read().decode(errors='replace')[:200],
                                  'server': subject.get('commonName'), 'headers': dict(answer.getheaders())}))
            except (ssl.SSLError, ConnectionError, OSError) as error:
                print(json.dumps({'status': 0, 'error': str(error)[:200]}))

        def passwordclients(address, ca, cert, key, user, bad, count):
            # `ask(password)`, a request of /status as `user` on a new TLS connection ('-': no client certificate),
            # and `count` threads asking with the wrong password `bad` as fast as they can until `end()`, which joins
            # them and says what they got.
            import base64, ssl, threading
            host, port = split(address)
            context = ssl.create_default_context(cafile=ca)
            if cert != '-':
                context.load_cert_chain(cert, key)
            def ask(password):
                connection = http.client.HTTPSConnection(host, port, timeout=30, context=context)
                auth = base64.b64encode(('%s:%s' % (user, password)).encode()).decode()
                connection.request('GET', '/status', headers={'Authorization': 'Basic ' + auth})
                status = connection.getresponse().status
                connection.close()
                return status
            stop, wrong, lock = [False], {}, threading.Lock()
            def attacker():
                while not stop[0]:
                    try:
                        status = ask(bad)
                    except OSError:
                        status = 0
                    with lock:
                        wrong[status] = wrong.get(status, 0) + 1
            threads = [threading.Thread(target=attacker, daemon=True) for _ in range(int(count))]
            for thread in threads:
                thread.start()
            def end():
                stop[0] = True
                # Joined before the interpreter ends: daemon threads still in OpenSSL as it finalizes crashed it once
                # ("double free or corruption", exit 134, under a loaded AddressSanitizer run)
                for thread in threads:
                    thread.join(timeout=35)
                return {str(k): v for k, v in wrong.items()}
            return ask, end

        def authflood(address, ca, cert, key, user, good, bad, count):
            # `count` clients send wrong passwords as fast as they can while one with the right password asks 10
            # times: how long its answers took, and what each got.
            ask, end = passwordclients(address, ca, cert, key, user, bad, count)
            time.sleep(1)
            times, statuses = [], []
            for _ in range(10):
                started = time.time()
                statuses.append(ask(good))
                times.append(time.time() - started)
            print(json.dumps({'statuses': statuses, 'slowest': max(times), 'wrong': end()}))

        def flood(address, ca, cert, key, user, bad, count, seconds):
            # `count` clients send wrong passwords as fast as they can for `seconds`: what they got.
            _, end = passwordclients(address, ca, cert, key, user, bad, count)
            time.sleep(float(seconds))
            print(json.dumps({'wrong': end()}))

        def deaf(address, ca, count, seconds):
            # `count` TLS clients (no client certificate) that finish their handshake, then never send nor read,
            # each opening a new connection as soon as the server closes its last one, for `seconds`, beside a
            # scraper: how many connections they opened, how many were open at the end, and the scrapes answered
            # and failed.
            import ssl, selectors
            count, seconds = int(count), float(seconds)
            resource.setrlimit(resource.RLIMIT_NOFILE, (count * 2 + 512, count * 2 + 512))
            context = ssl.create_default_context(cafile=ca)
            host, port = split(address)
            selector, opened = selectors.DefaultSelector(), [0]
            def connect():
                try:
                    raw = socket.create_connection((host, port), timeout=5)
                    wrapped = context.wrap_socket(raw, server_hostname='localhost')
                    wrapped.setblocking(False)
                    selector.register(wrapped, selectors.EVENT_READ)
                    opened[0] += 1
                except (OSError, ssl.SSLError):
                    pass
            for _ in range(count):
                connect()
            end = time.time() + seconds  # from when all are open: a slow server takes long to shake 400 hands
            # Beside them, a scraper (a process of its own: Python's lock would slow it) scrapes every 100 ms
            import multiprocessing
            scrapes = multiprocessing.RawArray('i', 2)  # answered, failed
            def scraper():
                while time.time() < end:
                    try:
                        connection = http.client.HTTPSConnection(host, port, timeout=10, context=context)
                        connection.request('GET', '/metrics')
                        answer = connection.getresponse()
                        answer.read()
                        connection.close()
                        scrapes[0 if answer.status == 200 else 1] += 1
                    except (OSError, http.client.HTTPException) as error:
                        print(f'a scrape beside the deaf clients failed: {error!r}', file=sys.stderr, flush=True)
                        scrapes[1] += 1
                    time.sleep(0.1)
            scraping = multiprocessing.get_context('fork').Process(target=scraper, daemon=True)
            scraping.start()
            while time.time() < end:
                for key, _ in selector.select(timeout=0.2):
                    # Readable: the server closed it (its close_notify, or the socket's end). Never read: drop and
                    # replace it, as a client that never reads would be replaced by its next one.
                    if sock_closed(key.fileobj):
                        selector.unregister(key.fileobj)
                        key.fileobj.close()
                        connect()
            # While they are all still open: what the server counts, and its descriptors
            connection = http.client.HTTPSConnection(host, port, timeout=10, context=context)
            connection.request('GET', '/metrics')
            lines = connection.getresponse().read().decode().splitlines()
            value = lambda name: next((float(l.split()[-1]) for l in lines if l.startswith(name + ' ')), -1)
            scraping.join(timeout=15)
            print(json.dumps({'opened': opened[0], 'open': len(selector.get_map()), 'scrapes': scrapes[0],
                              'failedScrapes': scrapes[1], 'connections': value('reach_serve_connections'),
                              'descriptors': value('process_open_fds')}))

        def tlspipeliners(address, ca, count, seconds, pid):
            # `count` TLS clients with small receive buffers that pipeline GET /metrics as fast as the server takes
            # them, for `seconds`, and never read: how many requests they sent, and the server's resident memory
            # (KiB, /proc/`pid`) before they began and while they are all still open.
            import ssl
            def resident():
                with open(f'/proc/{pid}/status') as status:
                    return int(next(l for l in status if l.startswith('VmRSS:')).split()[1])
            before, context = resident(), ssl.create_default_context(cafile=ca)
            host, port = split(address)
            batch, sent, clients = b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n' * 100, 0, []
            for _ in range(int(count)):
                raw = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                raw.connect((host, port))
                clients.append(context.wrap_socket(raw, server_hostname='localhost'))
                clients[-1].setblocking(False)
            end = time.time() + float(seconds)
            while time.time() < end:
                for client in clients:
                    try:
                        client.send(batch)
                        sent += 100
                    except (ssl.SSLWantWriteError, BlockingIOError):
                        pass
                time.sleep(0.01)
            print(json.dumps({'sent': sent, 'before': before, 'during': resident()}))

        def sock_closed(sock):
            import ssl
            try:
                return sock.recv(1) == b''
            except ssl.SSLWantReadError:
                return False
            except (OSError, ssl.SSLError):
                return True

        def tlsseries(address, ca, user, password, name):
            # The value of series `name` in /metrics over TLS, with a password.
            import base64, ssl
            context = ssl.create_default_context(cafile=ca)
            connection = http.client.HTTPSConnection(*split(address), timeout=10, context=context)
            auth = base64.b64encode(('%s:%s' % (user, password)).encode()).decode()
            connection.request('GET', '/metrics', headers={'Authorization': 'Basic ' + auth})
            answer = connection.getresponse()
            lines = answer.read().decode().splitlines()
            print(json.dumps({'status': answer.status,
                              'value': next((float(l.split()[-1]) for l in lines if l.startswith(name + ' ')), None)}))

        def badhello(address):
            # A TLS record that is no ClientHello, on a TLS port: how many bytes came back before the close.
            s = socket.create_connection(split(address), timeout=10)
            s.sendall(b'\x16\x03\x01\x00\x04\x01\x00\x00\x00')
            data = b''
            while True:
                try:
                    chunk = s.recv(4096)
                except ConnectionResetError:
                    break
                if not chunk:
                    break
                data += chunk
            print(json.dumps({'bytes': len(data)}))

        def slowreaders(address, count, seconds):
            # `count` /events readers from 4 loopback addresses, each with a 4 KiB receive buffer, reading 256 bytes
            # from each ready one every 0.5 s, for `seconds`, while another client scrapes /metrics every 0.2 s: how
            # many streams opened, how many the server closed, and the scrapes' times.
            import selectors, threading
            count, seconds = int(count), float(seconds)
            resource.setrlimit(resource.RLIMIT_NOFILE, (count * 2 + 512, count * 2 + 512))
            host, port = split(address)
            selector, opened, refused, unanswered = selectors.DefaultSelector(), 0, 0, []
            for index in range(count):
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.bind(('127.0.0.%d' % (2 + index % 4), 0))
                s.connect((host, port))
                s.sendall(b'GET /events HTTP/1.1\r\nHost: x\r\n\r\n')
                try:
                    head = s.recv(12)
                except ConnectionResetError:
                    head = None
                if head.startswith(b'HTTP/1.1 200') if head else False:
                    opened += 1
                    s.setblocking(False)
                    selector.register(s, selectors.EVENT_READ)
                elif not head:
                    # Closed before any answer (a reset when the request was still unread): what the server does
                    # to a connection whose request and answer miss the request timeout.
                    unanswered.append('%d: %s' % (index, 'reset' if head is None else 'closed'))
                    s.close()
                else:
                    refused += 1
                    s.close()
            times, stop = [], [False]
            def scraper():
                while not stop[0]:
                    began = time.time()
                    connection = http.client.HTTPConnection(host, port, timeout=30)
                    connection.request('GET', '/metrics')
                    connection.getresponse().read()
                    times.append((time.time() - began, round(began - start, 1)))
                    time.sleep(0.2)
            start = time.time()
            thread = threading.Thread(target=scraper)
            thread.start()
            fast, fastBytes = socket.create_connection((host, port)), [0]
            fast.sendall(b'GET /events HTTP/1.1\r\nHost: x\r\n\r\n')
            def fastreader():
                fast.settimeout(1)
                while not stop[0]:
                    try:
                        fastBytes[0] += len(fast.recv(65536))
                    except socket.timeout:
                        pass
            fastthread = threading.Thread(target=fastreader)
            fastthread.start()
            closed, end = 0, time.time() + seconds
            while time.time() < end:
                for key, _ in selector.select(timeout=0):
                    try:
                        data = key.fileobj.recv(256)
                    except BlockingIOError:
                        continue
                    except OSError:
                        data = b''
                    if not data:
                        closed += 1
                        selector.unregister(key.fileobj)
                        key.fileobj.close()
                time.sleep(0.5)
            stop[0] = True
            thread.join()
            fastthread.join()
            times.sort()
            print(json.dumps({'opened': opened, 'refused': refused, 'unanswered': unanswered,
                              'fastBytes': fastBytes[0], 'scrapes': len(times),
                              'p50': times[len(times) // 2][0], 'p99': times[int(len(times) * 0.99)][0],
                              'slowest': times[-1]}))

        def plainontls(address):
            # A plain HTTP request to a port that serves TLS: the answer's bytes.
            s = socket.create_connection(split(address), timeout=10)
            s.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n')
            data = b''
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                data += chunk
            print(json.dumps({'answer': data.decode(errors='replace')}))

        def rotate(address, ca, user, old, new, pid, web, changed):
            # On one kept-alive connection: the old password, then (after `changed` replaced `web` and SIGHUP read it,
            # or with `pid` 0 nothing else) the old password again; and how long an unknown user and a known user's wrong password take.
            import base64, ssl, shutil, signal
            context = ssl.create_default_context(cafile=ca)
            def auth(password, name=user):
                return {'Authorization': 'Basic ' + base64.b64encode(('%s:%s' % (name, password)).encode()).decode()}
            def ask(connection, password, name=user):
                connection.request('GET', '/status', headers=auth(password, name))
                answer = connection.getresponse()
                answer.read()
                return answer.status
            kept = http.client.HTTPSConnection(*split(address), timeout=10, context=context)
            before = ask(kept, old)
            def timed(password, name):
                started = time.time()
                ask(http.client.HTTPSConnection(*split(address), timeout=10, context=context), password, name)
                return time.time() - started
            unknown = sorted(timed('x', 'nobody-%d' % i) for i in range(7))[3]
            known = sorted(timed('x', user) for _ in range(7))[3]
            shutil.copyfile(changed, web)
            if pid != '0':  # '0': no SIGHUP and no new connection: the kept-alive one's next request must read it
                os.kill(int(pid), signal.SIGHUP)
            deadline = time.time() + (10 if pid != '0' else 0)
            while time.time() < deadline:
                if ask(http.client.HTTPSConnection(*split(address), timeout=10, context=context), new) == 200:
                    break
                time.sleep(0.05)
            print(json.dumps({'before': before, 'after': ask(kept, old), 'new': ask(kept, new),
                              'unknownSeconds': unknown, 'knownSeconds': known}))

        def halfsent(address, count, scrapes):
            # `count` clients send a whole GET head announcing a body of 1,000,000 bytes and never send it, each
            # reconnecting as soon as it is closed, while another scrapes /metrics `scrapes` times.
            import threading
            count, scrapes = int(count), int(scrapes)
            resource.setrlimit(resource.RLIMIT_NOFILE, (count * 4 + 512, count * 4 + 512))
            host, port = split(address)
            head = b'GET /metrics HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n'
            stop, answers, lock = [False], [], threading.Lock()
            def attacker():
                while not stop[0]:
                    try:
                        s = socket.create_connection((host, port), timeout=10)
                        s.sendall(head)
                        data = s.recv(100)
                        with lock:
                            answers.append(data.decode(errors='replace').split('\r\n')[0])
                        s.settimeout(10)
                        while s.recv(65536):
                            pass
                        s.close()
                    except OSError:
                        pass
            threads = [threading.Thread(target=attacker, daemon=True) for _ in range(count)]
            for thread in threads:
                thread.start()
            time.sleep(0.5)
            answered, started = 0, time.time()
            for _ in range(scrapes):
                try:
                    connection = http.client.HTTPConnection(host, port, timeout=5)
                    connection.request('GET', '/metrics')
                    if connection.getresponse().status == 200:
                        answered += 1
                    connection.close()
                except OSError:
                    pass
            seconds = time.time() - started
            stop[0] = True
            with lock:
                first = sorted(set(answers))
            print(json.dumps({'scrapesAnswered': answered, 'seconds': round(seconds, 2), 'halfSentAnswers': len(answers),
                              'halfSentAnsweredWith': first}))

        def stalled(address, count):
            # `count` clients ask for /metrics with a 4 KiB receive buffer and never read the answer; then a scrape.
            count = int(count)
            resource.setrlimit(resource.RLIMIT_NOFILE, (count + 512, count + 512))
            host, port = split(address)
            held = []
            for _ in range(count):
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                s.connect((host, port))
                s.sendall(b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n')
                held.append(s)
            time.sleep(0.5)
            connection = http.client.HTTPConnection(host, port, timeout=10)
            connection.request('GET', '/status')
            status = connection.getresponse().status
            print(json.dumps({'answered': status}))

        def pipeliners(address, count, scrapes):
            # `count` processes (not threads: the scraper must not wait for Python's lock) each pipeline 50
            # GET /metrics at a time without end on a connection with a small receive buffer, reading every answer,
            # while this one scrapes `scrapes` times on new connections: how long its scrapes took, and what the
            # others were answered (200 or 503) and how many of them were ended (each says why on stderr).
            import multiprocessing
            host, port = split(address)
            batch = b'GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n' * 50
            # Each worker counts in its own cells, without a lock: a worker killed while it held a shared lock would
            # leave this process waiting for it forever.
            answered, refused, ended = (multiprocessing.RawArray('i', int(count)) for _ in range(3))
            def pipeliner(me):
                def end(why):
                    print(f'a pipelining connection ended: {why}', file=sys.stderr, flush=True)
                    ended[me] += 1
                try:
                    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
                    s.settimeout(30)
                    s.connect((host, port))
                    while True:
                        s.sendall(batch)
                        seen, tail = 0, b''
                        while seen < 50:
                            chunk = s.recv(1 << 16)
                            if not chunk:
                                return end('closed by the server')
                            text = tail + chunk
                            ok, unavailable = text.count(b'HTTP/1.1 200'), text.count(b'HTTP/1.1 503')
                            seen += ok + unavailable
                            tail = chunk[-11:]  # shorter than a status line: none is counted twice
                            answered[me] += ok
                            refused[me] += unavailable
                except OSError as error:
                    end(error)
            workers = [multiprocessing.get_context('fork').Process(target=pipeliner, args=(me,), daemon=True)
                       for me in range(int(count))]
            for worker in workers:
                worker.start()
            time.sleep(0.5)
            latencies, statuses = [], {}
            for _ in range(int(scrapes)):
                started = time.time()
                connection = http.client.HTTPConnection(host, port, timeout=30)
                connection.request('GET', '/metrics')
                response = connection.getresponse()
                response.read()
                statuses[str(response.status)] = statuses.get(str(response.status), 0) + 1
                connection.close()
                latencies.append(time.time() - started)
            for worker in workers:
                worker.kill()
            latencies.sort()
            print(json.dumps({'median': latencies[len(latencies) // 2], 'p99': latencies[len(latencies) * 99 // 100 - 1],
                              'slowest': latencies[-1], 'statuses': statuses, 'pipelinedAnswers': sum(answered),
                              'pipelined503': sum(refused), 'ended': sum(ended)}))

        def churnscrape(address, seconds, timeout='10'):
            # Scrapes /metrics every 100 ms for `seconds`: how long each took; one that takes over `timeout` fails.
            host, port = split(address)
            latencies, failures, deadline = [], 0, time.time() + float(seconds)
            def scrape():
                connection = http.client.HTTPConnection(host, port, timeout=float(timeout))
                connection.request('GET', '/metrics')
                text = connection.getresponse().read().decode()
                connection.close()
                return text
            while time.time() < deadline:
                started = time.time()
                try:
                    scrape()
                    latencies.append(time.time() - started)
                except OSError:
                    failures += 1
                time.sleep(max(0, 0.1 - (time.time() - started)))
            print(json.dumps({'scrapes': len(latencies), 'failures': failures,
                              'latencies': latencies}), flush=True)

        def settle(address, value, timeout):
            # Seconds until every reach_target_reachable sample is `value`.
            host, port = split(address)
            started, deadline = time.time(), time.time() + float(timeout)
            while time.time() < deadline:
                connection = http.client.HTTPConnection(host, port, timeout=10)
                connection.request('GET', '/metrics')
                text = connection.getresponse().read().decode()
                connection.close()
                values = [line.rsplit(' ', 1)[1] for line in text.splitlines() if line.startswith('reach_target_reachable{')]
                if values and all(float(v) == float(value) for v in values):
                    print(json.dumps({'seconds': round(time.time() - started, 3), 'targets': len(values)}))
                    return
                time.sleep(0.02)
            print(json.dumps({'seconds': None}))

        globals()[sys.argv[1]](*sys.argv[2:])  # the mode: a function above
        """#
}
