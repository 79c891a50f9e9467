function __reach_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __reach_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __reach_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __reach_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __reach_parse_tokens -S
    set -l unparsed_tokens (__reach_tokens -pc)
    switch $unparsed_tokens[1]
    case 'reach'
        __reach_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'status'
            __reach_parse_subcommand 1 'resolution-timeout=' 'validate=' 'validation-timeout=' 'require=' 'prohibit=+' 'from=' 'json' 'quality' 'verbose' 'version' 'h/help'
        case 'watch'
            __reach_parse_subcommand -r 1 'resolution-timeout=' 'validate=' 'validation-timeout=' 'require=' 'prohibit=+' 'json' 'quality' 'verbose' 'version' 'h/help'
        case 'wait'
            __reach_parse_subcommand -r 1 'resolution-timeout=' 'validate=' 'validation-timeout=' 'require=' 'prohibit=+' 'timeout=' 'all' 'any' 'quality=' 'unmetered' 'network=' 'verbose' 'version' 'h/help'
        case 'interfaces'
            __reach_parse_subcommand 0 'json' 'verbose' 'version' 'h/help'
        case 'nat64'
            __reach_parse_subcommand 0 'wait=' 'json' 'version' 'h/help'
        case 'synthesize'
            __reach_parse_subcommand 1 'prefix=' 'version' 'h/help'
        case 'networks'
            __reach_parse_subcommand 0 'version' 'h/help'
            switch $unparsed_tokens[1]
            case 'list'
                __reach_parse_subcommand 0 'json' 'verbose' 'version' 'h/help'
            case 'label'
                __reach_parse_subcommand 1 'metered=' 'validate=' 'network=' 'verbose' 'version' 'h/help'
            end
        case 'serve'
            __reach_parse_subcommand -r 1 'resolution-timeout=' 'validate=' 'validation-timeout=' 'require=' 'prohibit=+' 'listen=+' 'metrics-path=' 'max-requests=' 'request-timeout=' 'max-connections=' 'max-streams=' 'web-config=' 'quality' 'all-flags' 'log-level=' 'log-format=' 'verbose' 'version' 'h/help'
        case 'queue'
            __reach_parse_subcommand -r 1 'version' 'h/help'
        case 'help'
            __reach_parse_subcommand -r 1 'version'
        end
    end
end

function __reach_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __reach_parse_subcommand -S -a positional_count
    argparse -s r -- $argv
    set -l option_specs $argv[2..]
    set -l is_repeating_positional $_flag_r
    set -el _flag_r
    set -a commands $unparsed_tokens[1]
    set positional_index 0
    while true
        set -e unparsed_tokens[1]
        argparse -sn "$commands" $option_specs -- $unparsed_tokens 2> /dev/null
        set unparsed_tokens $argv
        set positional_index (math $positional_index + 1)
        for non_repeating_flag_or_option in $non_repeating_flags_or_options
            if set -ql "_flag_$(string replace -a - _ -- $non_repeating_flag_or_option)"
                set non_repeating_flags_or_options_absent 1
                break
            end
        end
        test (count $unparsed_tokens) -eq 0 -o \( -z "$is_repeating_positional" -a "$positional_index" -gt "$positional_count" \) && break
    end
end

function __reach_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __reach_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__reach_tokens -p)
    if test -z "$(__reach_tokens -t)"
        set -l index (count (__reach_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'reach' -f
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach" version' -l 'version' -d 'Show the version.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach' -n '__reach_should_offer_completions_for_positional "reach" -eq 1' -fa 'status' -d 'Print the current state of a target once (exit 0 reachable, 1 not reachable, 64 bad input).'
complete -c 'reach' -n '__reach_should_offer_completions_for_positional "reach" -eq 1' -fa 'watch' -d 'Print each target\'s state, then a line whenever its flags or path change, until interrupted.'
complete -c 'reach' -n '__reach_should_offer_completions_for_positional "reach" -eq 1' -fa 'wait' -d 'Wait until the targets are reachable (exit 0); exit 1 at the timeout, 64 on bad input.'
complete -c 'reach' -n '__reach_should_offer_completions_for_positional "reach" -eq 1' -fa 'interfaces' -d 'List every interface: type, kind, state, carrier, a modem\'s or network manager\'s details, addresses, and which carries the internet.'
complete -c 'reach' -n '__reach_should_offer_completions_for_positional "reach" -eq 1' -fa 'nat64' -d 'Print whether the network is IPv6-only, its NAT64 prefixes (router advertisements, DNS64), RDNSS and portal.'
complete -c 'reach' -n '__reach_should_offer_completions_for_positional "reach" -eq 1' -fa 'synthesize' -d 'Print the IPv4-embedded IPv6 address for an IPv4 address (RFC 6052), with a given or discovered prefix.'
complete -c 'reach' -n '__reach_should_offer_completions_for_positional "reach" -eq 1' -fa 'networks' -d 'Print the current network\'s identity and the networks the settings files name; label one.'
complete -c 'reach' -n '__reach_should_offer_completions_for_positional "reach" -eq 1' -fa 'serve' -d 'Serve the targets\' state over HTTP: /metrics for Prometheus, /status as JSON, /events as a stream.'
complete -c 'reach' -n '__reach_should_offer_completions_for_positional "reach" -eq 1' -fa 'queue' -d 'Keep commands in a file and run them when the network allows (add, run, list, log, wait, retry, ...).'
complete -c 'reach' -n '__reach_should_offer_completions_for_positional "reach" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach status" resolution-timeout' -l 'resolution-timeout' -d 'Seconds a host name\'s resolution may take before it counts as timed out.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach status" validate' -l 'validate' -d 'Check the internet for real with an HTTP GET to this URL, which must answer 204 (captive portals, dead uplinks).' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach status" validation-timeout' -l 'validation-timeout' -d 'Seconds one validation probe may take.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach status" require' -l 'require' -d 'Reachable only through an interface of this type (wifi, wiredEthernet, cellular, loopback, other).' -rfka 'wifi wiredEthernet cellular loopback other'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach status"' -l 'prohibit' -d 'Never through an interface of this type; repeat for more (--prohibit cellular: no mobile data).' -rfka 'wifi wiredEthernet cellular loopback other'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach status" from' -l 'from' -d 'Local address to send from (the target must be an address).' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach status" json' -l 'json' -d 'Print one JSON object instead of a line of text.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach status" quality' -l 'quality' -d 'Measure how good the link is from the host\'s TCP flows: effective type (4g, 3g, 2g, slow-2g), RTT, throughput.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach status" verbose' -l 'verbose' -d 'Log the monitor\'s work to stderr: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach status" version' -l 'version' -d 'Show the version.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach status" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach watch" resolution-timeout' -l 'resolution-timeout' -d 'Seconds a host name\'s resolution may take before it counts as timed out.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach watch" validate' -l 'validate' -d 'Check the internet for real with an HTTP GET to this URL, which must answer 204 (captive portals, dead uplinks).' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach watch" validation-timeout' -l 'validation-timeout' -d 'Seconds one validation probe may take.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach watch" require' -l 'require' -d 'Reachable only through an interface of this type (wifi, wiredEthernet, cellular, loopback, other).' -rfka 'wifi wiredEthernet cellular loopback other'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach watch"' -l 'prohibit' -d 'Never through an interface of this type; repeat for more (--prohibit cellular: no mobile data).' -rfka 'wifi wiredEthernet cellular loopback other'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach watch" json' -l 'json' -d 'Print one JSON object per line.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach watch" quality' -l 'quality' -d 'Measure how good the link is from the host\'s TCP flows: effective type (4g, 3g, 2g, slow-2g), RTT, throughput.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach watch" verbose' -l 'verbose' -d 'Log the monitor\'s work to stderr: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach watch" version' -l 'version' -d 'Show the version.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach watch" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait" resolution-timeout' -l 'resolution-timeout' -d 'Seconds a host name\'s resolution may take before it counts as timed out.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait" validate' -l 'validate' -d 'Check the internet for real with an HTTP GET to this URL, which must answer 204 (captive portals, dead uplinks).' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait" validation-timeout' -l 'validation-timeout' -d 'Seconds one validation probe may take.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait" require' -l 'require' -d 'Reachable only through an interface of this type (wifi, wiredEthernet, cellular, loopback, other).' -rfka 'wifi wiredEthernet cellular loopback other'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait"' -l 'prohibit' -d 'Never through an interface of this type; repeat for more (--prohibit cellular: no mobile data).' -rfka 'wifi wiredEthernet cellular loopback other'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait" timeout' -l 'timeout' -d 'Seconds to wait at most; 0 checks once.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait" all' -l 'all' -d 'Wait until every target is reachable (the default), or until any one is.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait" any' -l 'any' -d 'Wait until every target is reachable (the default), or until any one is.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait" quality' -l 'quality' -d 'Also wait until the link is measured at least this good: 4g, 3g, 2g or slow-2g (from the host\'s TCP flows).' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait" unmetered' -l 'unmetered' -d 'Also wait until the path is not expensive: not cellular, not metered (the network\'s settings decide first).'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait" network' -l 'network' -d 'Also wait until the path is on this network: a label of the settings file, or a network id.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait" verbose' -l 'verbose' -d 'Log the monitor\'s work to stderr: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait" version' -l 'version' -d 'Show the version.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach wait" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach interfaces" json' -l 'json' -d 'Print one JSON array instead of a table.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach interfaces" verbose' -l 'verbose' -d 'Log the monitor\'s work to stderr: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach interfaces" version' -l 'version' -d 'Show the version.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach interfaces" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach nat64" wait' -l 'wait' -d 'Seconds to wait for the discovery answer.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach nat64" json' -l 'json' -d 'Print one JSON object instead of lines of text.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach nat64" version' -l 'version' -d 'Show the version.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach nat64" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach synthesize" prefix' -l 'prefix' -d 'The NAT64 prefix, e.g. 64:ff9b::/96; discovered through DNS64 (RFC 7050) when not given.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach synthesize" version' -l 'version' -d 'Show the version.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach synthesize" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach networks" version' -l 'version' -d 'Show the version.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach networks" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach' -n '__reach_should_offer_completions_for_positional "reach networks" -eq 1' -fa 'list' -d 'Print the current network\'s identity and the networks the settings files name.'
complete -c 'reach' -n '__reach_should_offer_completions_for_positional "reach networks" -eq 1' -fa 'label' -d 'Name the current network (or --network ID) in your settings file, with its overrides.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach networks list" json' -l 'json' -d 'Print one JSON object instead of lines.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach networks list" verbose' -l 'verbose' -d 'Log the monitor\'s work to stderr: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach networks list" version' -l 'version' -d 'Show the version.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach networks list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach networks label" metered' -l 'metered' -d 'Whether the network is metered whatever its link or NetworkManager says: yes or no.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach networks label" validate' -l 'validate' -d 'The URL a validator probes on this network (--validate), http:// or https://.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach networks label" network' -l 'network' -d 'The network\'s id (16 hexadecimal digits, as reach networks prints it) instead of the current one\'s.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach networks label" verbose' -l 'verbose' -d 'Log the monitor\'s work to stderr: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach networks label" version' -l 'version' -d 'Show the version.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach networks label" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" resolution-timeout' -l 'resolution-timeout' -d 'Seconds a host name\'s resolution may take before it counts as timed out.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" validate' -l 'validate' -d 'Check the internet for real with an HTTP GET to this URL, which must answer 204 (captive portals, dead uplinks).' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" validation-timeout' -l 'validation-timeout' -d 'Seconds one validation probe may take.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" require' -l 'require' -d 'Reachable only through an interface of this type (wifi, wiredEthernet, cellular, loopback, other).' -rfka 'wifi wiredEthernet cellular loopback other'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve"' -l 'prohibit' -d 'Never through an interface of this type; repeat for more (--prohibit cellular: no mobile data).' -rfka 'wifi wiredEthernet cellular loopback other'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve"' -l 'listen' -d 'Address and port to listen on: 127.0.0.1:9464, [::1]:9464, 0.0.0.0:9464 or :9464 (both families) for every interface; repeat it to listen on several.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" metrics-path' -l 'metrics-path' -d 'The path of the Prometheus exposition, as node_exporter\'s --web.telemetry-path.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" max-requests' -l 'max-requests' -d 'Scrapes of the metrics path answered at once; one more is answered 503 (0: no bound), as node_exporter\'s --web.max-requests.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" request-timeout' -l 'request-timeout' -d 'Seconds a client has to send a whole request (and take its answer) before it is closed.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" max-connections' -l 'max-connections' -d 'Connections open at once; at the bound, the oldest one not yet answered makes room.' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" max-streams' -l 'max-streams' -d '/events streams open at once, fewer than --max-connections; one more is answered 503. (default: 16, or one fewer than --max-connections)' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" web-config' -l 'web-config' -d 'A file of TLS and basic authentication settings, as Prometheus\' exporters take (tls_server_config, basic_auth_users).' -rfka ''
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" quality' -l 'quality' -d 'Measure how good the link is from the host\'s TCP flows: effective type (4g, 3g, 2g, slow-2g), RTT, throughput.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" all-flags' -l 'all-flags' -d 'Also serve reach_target_flags for connectionOnTraffic and connectionOnDemand, which only Apple\'s on-demand connections set (always 0 here).'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" log-level' -l 'log-level' -d 'The least level of the server\'s log lines on stderr: debug, info, warn or error (--verbose: debug).' -rfka 'debug info warn error'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" log-format' -l 'log-format' -d 'How log lines are written: text (reach: …), logfmt or json, as node_exporter writes its own.' -rfka 'text logfmt json'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" verbose' -l 'verbose' -d 'Log the monitor\'s work to stderr: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" version' -l 'version' -d 'Show the version.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach serve" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach queue" version' -l 'version' -d 'Show the version.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach queue" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach' -n '__reach_should_offer_completions_for_flags_or_options "reach help" version' -l 'version' -d 'Show the version.'
