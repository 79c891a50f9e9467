#compdef reach

__reach_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -- empty_completions -P $'\'\''
}

__reach_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __reach_complete "${completions[@]:0:-1}"
    fi
}

__reach_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_reach() {
    emulate -RL zsh -G
    setopt extendedglob nullglob numericglobsort
    unsetopt aliases banghist

    local -xr SAP_SHELL=zsh
    local -x SAP_SHELL_VERSION
    SAP_SHELL_VERSION="$(builtin emulate zsh -c 'printf %s "${ZSH_VERSION}"')"
    local -r SAP_SHELL_VERSION

    local context state state_descr line
    local -A opt_args

    local -r command_name="${words[1]}"
    local -ar command_line=("${words[@]}")
    local -ir current_word_index="$((CURRENT - 1))"

    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'status:Print the current state of a target once (exit 0 reachable, 1 not reachable, 64 bad input).'
            'watch:Print each target'\''s state, then a line whenever its flags or path change, until interrupted.'
            'wait:Wait until the targets are reachable (exit 0); exit 1 at the timeout, 64 on bad input.'
            'interfaces:List every interface: type, kind, state, carrier, a modem'\''s or network manager'\''s details, addresses, and which carries the internet.'
            'nat64:Print whether the network is IPv6-only, its NAT64 prefixes (router advertisements, DNS64), RDNSS and portal.'
            'synthesize:Print the IPv4-embedded IPv6 address for an IPv4 address (RFC 6052), with a given or discovered prefix.'
            'networks:Print the current network'\''s identity and the networks the settings files name; label one.'
            'serve:Serve the targets'\'' state over HTTP: /metrics for Prometheus, /status as JSON, /events as a stream.'
            'queue:Keep commands in a file and run them when the network allows (add, run, list, log, wait, retry, ...).'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        status|watch|wait|interfaces|nat64|synthesize|networks|serve|queue|help)
            "_reach_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_reach_status() {
    local -i ret=1
    local -ar ___require=('wifi' 'wiredEthernet' 'cellular' 'loopback' 'other')
    local -ar ___prohibit=('wifi' 'wiredEthernet' 'cellular' 'loopback' 'other')
    local -ar arg_specs=(
        ':target:'
        '--resolution-timeout[Seconds a host name'\''s resolution may take before it counts as timed out.]:resolution-timeout:'
        '--validate[Check the internet for real with an HTTP GET to this URL, which must answer 204 (captive portals, dead uplinks).]:validate:'
        '--validation-timeout[Seconds one validation probe may take.]:validation-timeout:'
        '--require[Reachable only through an interface of this type (wifi, wiredEthernet, cellular, loopback, other).]:require:{__reach_complete "${___require[@]}"}'
        '*--prohibit[Never through an interface of this type; repeat for more (--prohibit cellular\: no mobile data).]:prohibit:{__reach_complete "${___prohibit[@]}"}'
        '--from[Local address to send from (the target must be an address).]:from:'
        '--json[Print one JSON object instead of a line of text.]'
        '--quality[Measure how good the link is from the host'\''s TCP flows\: effective type (4g, 3g, 2g, slow-2g), RTT, throughput.]'
        '--verbose[Log the monitor'\''s work to stderr\: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach_watch() {
    local -i ret=1
    local -ar ___require=('wifi' 'wiredEthernet' 'cellular' 'loopback' 'other')
    local -ar ___prohibit=('wifi' 'wiredEthernet' 'cellular' 'loopback' 'other')
    local -ar arg_specs=(
        '*:targets:'
        '--resolution-timeout[Seconds a host name'\''s resolution may take before it counts as timed out.]:resolution-timeout:'
        '--validate[Check the internet for real with an HTTP GET to this URL, which must answer 204 (captive portals, dead uplinks).]:validate:'
        '--validation-timeout[Seconds one validation probe may take.]:validation-timeout:'
        '--require[Reachable only through an interface of this type (wifi, wiredEthernet, cellular, loopback, other).]:require:{__reach_complete "${___require[@]}"}'
        '*--prohibit[Never through an interface of this type; repeat for more (--prohibit cellular\: no mobile data).]:prohibit:{__reach_complete "${___prohibit[@]}"}'
        '--json[Print one JSON object per line.]'
        '--quality[Measure how good the link is from the host'\''s TCP flows\: effective type (4g, 3g, 2g, slow-2g), RTT, throughput.]'
        '--verbose[Log the monitor'\''s work to stderr\: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach_wait() {
    local -i ret=1
    local -ar ___require=('wifi' 'wiredEthernet' 'cellular' 'loopback' 'other')
    local -ar ___prohibit=('wifi' 'wiredEthernet' 'cellular' 'loopback' 'other')
    local -ar arg_specs=(
        '*:targets:'
        '--resolution-timeout[Seconds a host name'\''s resolution may take before it counts as timed out.]:resolution-timeout:'
        '--validate[Check the internet for real with an HTTP GET to this URL, which must answer 204 (captive portals, dead uplinks).]:validate:'
        '--validation-timeout[Seconds one validation probe may take.]:validation-timeout:'
        '--require[Reachable only through an interface of this type (wifi, wiredEthernet, cellular, loopback, other).]:require:{__reach_complete "${___require[@]}"}'
        '*--prohibit[Never through an interface of this type; repeat for more (--prohibit cellular\: no mobile data).]:prohibit:{__reach_complete "${___prohibit[@]}"}'
        '--timeout[Seconds to wait at most; 0 checks once.]:timeout:'
        '--all[Wait until every target is reachable (the default), or until any one is.]'
        '--any[Wait until every target is reachable (the default), or until any one is.]'
        '--quality[Also wait until the link is measured at least this good\: 4g, 3g, 2g or slow-2g (from the host'\''s TCP flows).]:quality:'
        '--unmetered[Also wait until the path is not expensive\: not cellular, not metered (the network'\''s settings decide first).]'
        '--network[Also wait until the path is on this network\: a label of the settings file, or a network id.]:network:'
        '--verbose[Log the monitor'\''s work to stderr\: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach_interfaces() {
    local -i ret=1
    local -ar arg_specs=(
        '--json[Print one JSON array instead of a table.]'
        '--verbose[Log the monitor'\''s work to stderr\: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach_nat64() {
    local -i ret=1
    local -ar arg_specs=(
        '--wait[Seconds to wait for the discovery answer.]:wait:'
        '--json[Print one JSON object instead of lines of text.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach_synthesize() {
    local -i ret=1
    local -ar arg_specs=(
        ':address:'
        '--prefix[The NAT64 prefix, e.g. 64\:ff9b\:\:/96; discovered through DNS64 (RFC 7050) when not given.]:prefix:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach_networks() {
    local -i ret=1
    local -ar arg_specs=(
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
        '(-): :->command'
        '(-)*:: :->arg'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0
    case "${state}" in
    command)
        local -ar subcommands=(
            'list:Print the current network'\''s identity and the networks the settings files name.'
            'label:Name the current network (or --network ID) in your settings file, with its overrides.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        list|label)
            "_reach_networks_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_reach_networks_list() {
    local -i ret=1
    local -ar arg_specs=(
        '--json[Print one JSON object instead of lines.]'
        '--verbose[Log the monitor'\''s work to stderr\: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach_networks_label() {
    local -i ret=1
    local -ar arg_specs=(
        ':label:'
        '--metered[Whether the network is metered whatever its link or NetworkManager says\: yes or no.]:metered:'
        '--validate[The URL a validator probes on this network (--validate), http\:// or https\://.]:validate:'
        '--network[The network'\''s id (16 hexadecimal digits, as reach networks prints it) instead of the current one'\''s.]:network:'
        '--verbose[Log the monitor'\''s work to stderr\: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach_serve() {
    local -i ret=1
    local -ar ___require=('wifi' 'wiredEthernet' 'cellular' 'loopback' 'other')
    local -ar ___prohibit=('wifi' 'wiredEthernet' 'cellular' 'loopback' 'other')
    local -ar ___log_level=('debug' 'info' 'warn' 'error')
    local -ar ___log_format=('text' 'logfmt' 'json')
    local -ar arg_specs=(
        '*:targets:'
        '--resolution-timeout[Seconds a host name'\''s resolution may take before it counts as timed out.]:resolution-timeout:'
        '--validate[Check the internet for real with an HTTP GET to this URL, which must answer 204 (captive portals, dead uplinks).]:validate:'
        '--validation-timeout[Seconds one validation probe may take.]:validation-timeout:'
        '--require[Reachable only through an interface of this type (wifi, wiredEthernet, cellular, loopback, other).]:require:{__reach_complete "${___require[@]}"}'
        '*--prohibit[Never through an interface of this type; repeat for more (--prohibit cellular\: no mobile data).]:prohibit:{__reach_complete "${___prohibit[@]}"}'
        '*--listen[Address and port to listen on\: 127.0.0.1\:9464, \[\:\:1\]\:9464, 0.0.0.0\:9464 or \:9464 (both families) for every interface; repeat it to listen on several.]:addr\:port:'
        '--metrics-path[The path of the Prometheus exposition, as node_exporter'\''s --web.telemetry-path.]:metrics-path:'
        '--max-requests[Scrapes of the metrics path answered at once; one more is answered 503 (0\: no bound), as node_exporter'\''s --web.max-requests.]:max-requests:'
        '--request-timeout[Seconds a client has to send a whole request (and take its answer) before it is closed.]:request-timeout:'
        '--max-connections[Connections open at once; at the bound, the oldest one not yet answered makes room.]:max-connections:'
        '--max-streams[/events streams open at once, fewer than --max-connections; one more is answered 503. (default\: 16, or one fewer than --max-connections)]:max-streams:'
        '--web-config[A file of TLS and basic authentication settings, as Prometheus'\'' exporters take (tls_server_config, basic_auth_users).]:web-config:'
        '--quality[Measure how good the link is from the host'\''s TCP flows\: effective type (4g, 3g, 2g, slow-2g), RTT, throughput.]'
        '--all-flags[Also serve reach_target_flags for connectionOnTraffic and connectionOnDemand, which only Apple'\''s on-demand connections set (always 0 here).]'
        '--log-level[The least level of the server'\''s log lines on stderr\: debug, info, warn or error (--verbose\: debug).]:log-level:{__reach_complete "${___log_level[@]}"}'
        '--log-format[How log lines are written\: text (reach\: …), logfmt or json, as node_exporter writes its own.]:log-format:{__reach_complete "${___log_format[@]}"}'
        '--verbose[Log the monitor'\''s work to stderr\: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach_queue() {
    local -i ret=1
    local -ar arg_specs=(
        '*:arguments:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
        '--version[Show the version.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _reach ]]; then
    _reach "${@}"
else
    compdef _reach reach
fi
