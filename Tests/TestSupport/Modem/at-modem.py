#!/usr/bin/env python3
"""A 3GPP modem's AT port for ModemManager's test mode (Test.SetProfile), written from 3GPP TS 27.007 and ITU-T V.250.

Listens on the abstract UNIX socket named by argv[1] and keeps the network state in the JSON file argv[2]:
{"registration": 5, "act": 7, "rssi": 20, "operator": "21401"}. On SIGUSR1 it reads the file again and sends each
connected port the unsolicited result codes (+CREG, +CGREG, +CEREG) that the change calls for, as a modem does when
it moves between networks. Prints 'ready' once listening; logs each command and answer on stderr.

It keeps PDP contexts (+CGDCONT, 27.007 10.1.1) and dials a packet data call (V.250 D with 27.007 10.2.1.1's
*99***<cid>#): it answers CONNECT and the connection is then in data mode, where it reads and ignores everything, as
pppd's peer would see nothing from a stand-in, until ModemManager closes it. A new connection is in command mode.
"""
import json
import os
import signal
import socket
import sys
import threading

NAME, STATE_FILE = sys.argv[1], sys.argv[2]
lock = threading.Lock()
state = {}
ports = []  # one dict per connection: its socket and the result-code modes it asked for
contexts = {}  # cid -> (PDP type, APN), as +CGDCONT defined them


def load():
    with open(STATE_FILE) as f:
        state.update(json.load(f))


def registration(command, mode):
    """+CREG / +CGREG / +CEREG: <n>,<stat>[,<lac|tac>,<ci>[,<AcT>]] (27.007 7.2, 10.1.20, 10.1.22)."""
    area = '"31C5"' if command != "CREG" else '"1234"'
    fields = [str(state["registration"])]
    if mode >= 2 and state["registration"] in (1, 5):
        fields += [area, '"0083F7CD"', str(state["act"])]
    return ",".join(fields)


def answer(port, command):
    """The information text of one command, or None for ERROR."""
    upper = command.upper()
    fixed = {
        "": "", "E0": "", "V1": "", "X4": "", "&C1": "", "H": "", "Z": "",
        "+GCAP": "+GCAP: +CGSM", "I": "Manufacturer: reach tests\r\nModel: AT modem\r\nRevision: 1",
        "+CGMI": "reach tests", "+CGMM": "AT modem", "+CGMR": "1", "+CGSN": "490154203237518",
        "+CIMI": "214010123456789", "+CPIN?": "+CPIN: READY", "+CFUN?": "+CFUN: 1", "+CNUM": "",
        "+WS46=?": "+WS46: (12,22,25,28)", "+CSCS=?": '+CSCS: ("IRA","GSM","UCS2")', "+CSCS?": '+CSCS: "IRA"',
        "+CLCK=?": '+CLCK: ("SC","PS","FD")', '+CLCK="SC",2': "+CLCK: 0", '+CLCK="PS",2': "+CLCK: 0",
        '+CLCK="FD",2': "+CLCK: 0", "+CMEE=1": "", "+CMEE=2": "", "+CTZU=1": "",
        "+CGDCONT=?": '+CGDCONT: (1-11),"IP",,,(0-2),(0-3)\r\n+CGDCONT: (1-11),"IPV4V6",,,(0-2),(0-3)',
    }
    if upper in fixed:
        return fixed[upper]
    if upper.startswith("+CFUN="):
        return ""
    if upper == "+CGDCONT?":
        return "\r\n".join('+CGDCONT: %d,"%s","%s","0.0.0.0",0,0' % (cid, kind, apn)
                            for cid, (kind, apn) in sorted(contexts.items()))
    if upper.startswith("+CGDCONT="):
        fields = [field.strip().strip('"') for field in command[len("+CGDCONT="):].split(",")]
        if not fields[0].isdigit():
            return None
        if len(fields) == 1:
            contexts.pop(int(fields[0]), None)
        else:
            contexts[int(fields[0])] = (fields[1] or "IP", fields[2] if len(fields) > 2 else "")
        return ""
    if upper == "+CGATT?":
        return "+CGATT: %d" % (1 if state["registration"] in (1, 5) else 0)
    if upper == "+CGACT?":
        return "\r\n".join("+CGACT: %d,0" % cid for cid in sorted(contexts))
    if upper.startswith("+CGACT="):
        return ""
    for name in ("CREG", "CGREG", "CEREG"):
        if upper.startswith("+%s=" % name) and upper[len(name) + 2:].isdigit():
            port[name] = int(upper[len(name) + 2:])
            return ""
        if upper == "+%s?" % name:
            return "+%s: %d,%s" % (name, port.get(name, 0), registration(name, port.get(name, 0)))
    if upper.startswith("+COPS=3,"):
        port["COPS"] = int(upper[8:]) if upper[8:].isdigit() else 2
        return ""
    if upper == "+COPS?":
        if state["registration"] not in (1, 5):
            return "+COPS: 0"
        return '+COPS: 0,%d,"%s",%d' % (port.get("COPS", 2), state["operator"], state["act"])
    if upper == "+CSQ":
        return "+CSQ: %d,99" % state["rssi"]
    return None


def serve(connection):
    port = {"socket": connection}
    with lock:
        ports.append(port)
    pending = b""
    while True:
        data = connection.recv(4096)
        if not data:
            break
        if port.get("data"):
            continue  # data mode: no commands until the connection ends
        pending += data
        while b"\r" in pending and not port.get("data"):
            line, _, pending = pending.partition(b"\r")
            line = line.strip(b"\n").decode(errors="replace").strip()
            if not line:
                continue
            if not line.upper().startswith("AT"):
                connection.sendall(b"\r\nERROR\r\n")
                continue
            dial = line[2:].strip().upper()
            if dial.startswith("D*99") and dial.endswith("#"):
                # 27.007 10.2.1.1: *99[*...[*<cid>]]# requests packet service on context <cid>
                cid = dial[4:-1].split("*")[-1] or "1"
                registered = state["registration"] in (1, 5)
                reply = "\r\nCONNECT\r\n" if registered and cid.isdigit() and int(cid) in contexts else "\r\nNO CARRIER\r\n"
                sys.stderr.write("%r -> %r\n" % (line, reply))
                sys.stderr.flush()
                connection.sendall(reply.encode())
                port["data"] = "CONNECT" in reply
                continue
            # V.250 5.2.1: commands after the first of a line are separated by ';' and carry no 'AT' of their own.
            texts, failed = [], False
            with lock:
                for command in line[2:].split(";"):
                    text = answer(port, command.strip())
                    if text is None:
                        failed = True
                        break
                    if text:
                        texts.append(text)
            reply = "".join("\r\n%s\r\n" % text for text in texts) + ("\r\nERROR\r\n" if failed else "\r\nOK\r\n")
            sys.stderr.write("%r -> %r\n" % (line, reply))
            sys.stderr.flush()
            connection.sendall(reply.encode())
    with lock:
        ports.remove(port)


def changed(*_):
    with lock:
        load()
        for port in ports:
            if port.get("data"):
                continue
            codes = ["+%s: %s" % (name, registration(name, port[name])) for name in ("CREG", "CGREG", "CEREG")
                     if port.get(name, 0) > 0]
            try:
                port["socket"].sendall("".join("\r\n%s\r\n" % code for code in codes).encode())
            except OSError:
                pass


load()
listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
listener.bind("\0" + NAME)
listener.listen(4)
signal.signal(signal.SIGUSR1, changed)
print("ready", flush=True)
while True:
    client, _ = listener.accept()
    threading.Thread(target=serve, args=(client,), daemon=True).start()
