function __reach-queue_should_offer_completions_for_flags_or_options -a expected_commands
    set -l non_repeating_flags_or_options $argv[2..]
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __reach-queue_parse_tokens
    test "$commands" = "$expected_commands"; and return $non_repeating_flags_or_options_absent
end

function __reach-queue_should_offer_completions_for_positional -a expected_commands positional_index_comparison expected_positional_index
    set -l non_repeating_flags_or_options
    set -l non_repeating_flags_or_options_absent 0
    set -l positional_index 0
    set -l commands
    __reach-queue_parse_tokens
    test "$commands" = "$expected_commands" -a \( "$positional_index" "$positional_index_comparison" "$expected_positional_index" \)
end

function __reach-queue_parse_tokens -S
    set -l unparsed_tokens (__reach-queue_tokens -pc)
    switch $unparsed_tokens[1]
    case 'reach-queue'
        __reach-queue_parse_subcommand 0 'version' 'h/help'
        switch $unparsed_tokens[1]
        case 'add'
            __reach-queue_parse_subcommand -r 2 'when=+' 'require=' 'prohibit=+' 'target=' 'key=' 'keep' 'attempts=' 'retry-delay=' 'expires=' 'after=' 'delay=' 'not-before=' 'timeout=' 'priority=' 'permanent-failure=' 'max-jobs=' 'version' 'h/help'
        case 'run'
            __reach-queue_parse_subcommand 1 'validate=' 'validation-timeout=' 'concurrency=' 'verbose' 'version' 'h/help'
        case 'list'
            __reach-queue_parse_subcommand 1 'json' 'all' 'version' 'h/help'
        case 'log'
            __reach-queue_parse_subcommand 2 'follow' 'version' 'h/help'
        case 'wait'
            __reach-queue_parse_subcommand 2 'version' 'h/help'
        case 'retry'
            __reach-queue_parse_subcommand -r 2 'failed' 'version' 'h/help'
        case 'remove'
            __reach-queue_parse_subcommand 2 'version' 'h/help'
        case 'clean'
            __reach-queue_parse_subcommand 1 'failed' 'version' 'h/help'
        case 'pause'
            __reach-queue_parse_subcommand 1 'version' 'h/help'
        case 'resume'
            __reach-queue_parse_subcommand 1 'version' 'h/help'
        case 'help'
            __reach-queue_parse_subcommand -r 1 'version'
        end
    end
end

function __reach-queue_tokens
    if test (string split -m 1 -f 1 -- . "$FISH_VERSION") -gt 3
        commandline --tokens-raw $argv
    else
        commandline -o $argv
    end
end

function __reach-queue_parse_subcommand -S -a positional_count
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

function __reach-queue_complete_directories
    set -l token (commandline -t)
    string match -- '*/' $token
    set -l subdirs $token*/
    printf %s\n $subdirs
end

function __reach-queue_custom_completion
    set -x SAP_SHELL fish
    set -x SAP_SHELL_VERSION $FISH_VERSION
    set -l tokens (__reach-queue_tokens -p)
    if test -z "$(__reach-queue_tokens -t)"
        set -l index (count (__reach-queue_tokens -pc))
        set tokens $tokens[..$index] \'\' $tokens[(math $index + 1)..]
    end
    command $tokens[1] $argv $tokens
end

complete -c 'reach-queue' -f
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue" version' -l 'version' -d 'Show the version.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_positional "reach-queue" -eq 1' -fa 'add' -d 'Keep a command to run when the network allows; print its id once it is on the disk.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_positional "reach-queue" -eq 1' -fa 'run' -d 'Run the queue\'s commands in order while their conditions hold, until SIGTERM or SIGINT.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_positional "reach-queue" -eq 1' -fa 'list' -d 'Print one line per job: id, state, attempts, conditions and command; with --all, the done ones too.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_positional "reach-queue" -eq 1' -fa 'log' -d 'Print what a job\'s last attempt wrote to stdout and stderr (its last 64 KiB), byte for byte.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_positional "reach-queue" -eq 1' -fa 'wait' -d 'Wait until a job is done or has failed for good, and exit with its status.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_positional "reach-queue" -eq 1' -fa 'retry' -d 'Run failed jobs again, under their ids and in their places, with their attempts counted from 0.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_positional "reach-queue" -eq 1' -fa 'remove' -d 'Remove a job whatever its state; if its command runs, the worker stops it (SIGTERM).'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_positional "reach-queue" -eq 1' -fa 'clean' -d 'Remove the done jobs kept (at least the latest 1,000, for 7 days) and, with --failed, the failed jobs.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_positional "reach-queue" -eq 1' -fa 'pause' -d 'Start no job until `resume`; the jobs running run on. Kept in the file, across the worker\'s restarts.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_positional "reach-queue" -eq 1' -fa 'resume' -d 'Start jobs again after `pause`.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_positional "reach-queue" -eq 1' -fa 'help' -d 'Show subcommand help information.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add"' -l 'when' -d 'Conditions beyond a reachable target, comma-separated: validated, unmetered, not-roaming, quality=3g, network=home.' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" require' -l 'require' -d 'Reachable only through an interface of this type (wifi, wiredEthernet, cellular, loopback, other).' -rfka 'wifi wiredEthernet cellular loopback other'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add"' -l 'prohibit' -d 'Never through an interface of this type; repeat for more (--prohibit cellular: no mobile data).' -rfka 'wifi wiredEthernet cellular loopback other'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" target' -l 'target' -d 'What must be reachable: internet, a host name, a URL or an address.' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" key' -l 'key' -d 'A job already queued under this key is replaced by this one (or kept, with --keep).' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" keep' -l 'keep' -d 'With --key: keep the job queued under it, and print its id, instead of replacing it.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" attempts' -l 'attempts' -d 'The most attempts before the job is kept as failed.' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" retry-delay' -l 'retry-delay' -d 'Seconds to wait after the first failed attempt; each further failure doubles it, up to an hour.' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" expires' -l 'expires' -d 'Seconds from now after which the job is failed rather than run.' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" after' -l 'after' -d 'Run only after the job with this id succeeded; if it fails or is removed, this one fails.' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" delay' -l 'delay' -d 'Seconds from now before which the job does not run.' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" not-before' -l 'not-before' -d 'A time before which the job does not run, in ISO 8601 with its zone (2026-11-29T03:00:00Z), within 10 years.' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" timeout' -l 'timeout' -d 'Seconds one attempt may run; then it is stopped (SIGTERM, SIGKILL 10 s later) and counts as failed, exit status 124.' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" priority' -l 'priority' -d 'Among the jobs that may run, a higher priority runs first (-1000 to 1000).' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" permanent-failure' -l 'permanent-failure' -d 'Exit statuses, comma-separated, after which the job fails at once, without its remaining attempts.' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" max-jobs' -l 'max-jobs' -d 'Refuse the job (exit 75) while the file holds this many jobs, failed ones included.' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" version' -l 'version' -d 'Show the version.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue add" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue run" validate' -l 'validate' -d 'Check the internet for real with an HTTP GET to this URL, which must answer 204 (captive portals, dead uplinks).' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue run" validation-timeout' -l 'validation-timeout' -d 'Seconds one validation probe may take.' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue run" concurrency' -l 'concurrency' -d 'How many commands may run at once.' -rfka ''
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue run" verbose' -l 'verbose' -d 'Log the monitor\'s work to stderr: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue run" version' -l 'version' -d 'Show the version.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue run" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue list" json' -l 'json' -d 'Print one JSON object per line.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue list" all' -l 'all' -d 'Print the done jobs kept too, with their exit status in --json.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue list" version' -l 'version' -d 'Show the version.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue list" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue log" follow' -l 'follow' -d 'Print what it writes next, until it ends.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue log" version' -l 'version' -d 'Show the version.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue log" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue wait" version' -l 'version' -d 'Show the version.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue wait" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue retry" failed' -l 'failed' -d 'Every failed job.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue retry" version' -l 'version' -d 'Show the version.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue retry" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue remove" version' -l 'version' -d 'Show the version.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue remove" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue clean" failed' -l 'failed' -d 'Remove the failed jobs too.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue clean" version' -l 'version' -d 'Show the version.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue clean" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue pause" version' -l 'version' -d 'Show the version.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue pause" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue resume" version' -l 'version' -d 'Show the version.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue resume" h help' -s 'h' -l 'help' -d 'Show help information.'
complete -c 'reach-queue' -n '__reach-queue_should_offer_completions_for_flags_or_options "reach-queue help" version' -l 'version' -d 'Show the version.'
