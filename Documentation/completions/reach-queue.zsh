#compdef reach-queue

__reach-queue_complete() {
    local -ar non_empty_completions=("${@:#(|:*)}")
    local -ar empty_completions=("${(M)@:#(|:*)}")
    _describe -V '' non_empty_completions -- empty_completions -P $'\'\''
}

__reach-queue_custom_complete() {
    local -a completions
    completions=("${(@f)"$("${command_name}" "${@}" "${command_line[@]}")"}")
    if [[ "${#completions[@]}" -gt 1 ]]; then
        __reach-queue_complete "${completions[@]:0:-1}"
    fi
}

__reach-queue_cursor_index_in_current_word() {
    if [[ -z "${QIPREFIX}${IPREFIX}${PREFIX}" ]]; then
        printf 0
    else
        printf %s "${#${(z)LBUFFER}[-1]}"
    fi
}

_reach-queue() {
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
            'add:Keep a command to run when the network allows; print its id once it is on the disk.'
            'run:Run the queue'\''s commands in order while their conditions hold, until SIGTERM or SIGINT.'
            'list:Print one line per job: id, state, attempts, conditions and command; with --all, the done ones too.'
            'log:Print what a job'\''s last attempt wrote to stdout and stderr (its last 64 KiB), byte for byte.'
            'wait:Wait until a job is done or has failed for good, and exit with its status.'
            'retry:Run failed jobs again, under their ids and in their places, with their attempts counted from 0.'
            'remove:Remove a job whatever its state; if its command runs, the worker stops it (SIGTERM).'
            'clean:Remove the done jobs kept (at least the latest 1,000, for 7 days) and, with --failed, the failed jobs.'
            'pause:Start no job until `resume`; the jobs running run on. Kept in the file, across the worker'\''s restarts.'
            'resume:Start jobs again after `pause`.'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        add|run|list|log|wait|retry|remove|clean|pause|resume|help)
            "_reach-queue_${words[1]}" && ret=0
            ;;
        esac
        ;;
    esac

    return "${ret}"
}

_reach-queue_add() {
    local -i ret=1
    local -ar ___require=('wifi' 'wiredEthernet' 'cellular' 'loopback' 'other')
    local -ar ___prohibit=('wifi' 'wiredEthernet' 'cellular' 'loopback' 'other')
    local -ar arg_specs=(
        ':database:'
        '*--when[Conditions beyond a reachable target, comma-separated\: validated, unmetered, not-roaming, quality=3g, network=home.]:when:'
        '--require[Reachable only through an interface of this type (wifi, wiredEthernet, cellular, loopback, other).]:require:{__reach-queue_complete "${___require[@]}"}'
        '*--prohibit[Never through an interface of this type; repeat for more (--prohibit cellular\: no mobile data).]:prohibit:{__reach-queue_complete "${___prohibit[@]}"}'
        '--target[What must be reachable\: internet, a host name, a URL or an address.]:target:'
        '--key[A job already queued under this key is replaced by this one (or kept, with --keep).]:key:'
        '--keep[With --key\: keep the job queued under it, and print its id, instead of replacing it.]'
        '--attempts[The most attempts before the job is kept as failed.]:attempts:'
        '--retry-delay[Seconds to wait after the first failed attempt; each further failure doubles it, up to an hour.]:retry-delay:'
        '--expires[Seconds from now after which the job is failed rather than run.]:expires:'
        '--after[Run only after the job with this id succeeded; if it fails or is removed, this one fails.]:after:'
        '--delay[Seconds from now before which the job does not run.]:delay:'
        '--not-before[A time before which the job does not run, in ISO 8601 with its zone (2026-11-29T03\:00\:00Z), within 10 years.]:not-before:'
        '--timeout[Seconds one attempt may run; then it is stopped (SIGTERM, SIGKILL 10 s later) and counts as failed, exit status 124.]:timeout:'
        '--priority[Among the jobs that may run, a higher priority runs first (-1000 to 1000).]:priority:'
        '--permanent-failure[Exit statuses, comma-separated, after which the job fails at once, without its remaining attempts.]:permanent-failure:'
        '--max-jobs[Refuse the job (exit 75) while the file holds this many jobs, failed ones included.]:max-jobs:'
        '*:command:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach-queue_run() {
    local -i ret=1
    local -ar arg_specs=(
        ':database:'
        '--validate[Check the internet for real with an HTTP GET to this URL, which must answer 204 (captive portals, dead uplinks).]:validate:'
        '--validation-timeout[Seconds one validation probe may take.]:validation-timeout:'
        '--concurrency[How many commands may run at once.]:concurrency:'
        '--verbose[Log the monitor'\''s work to stderr\: each kernel batch, socket overflows and re-reads, dropped messages, and what was read from ModemManager and NetworkManager, or why nothing was.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach-queue_list() {
    local -i ret=1
    local -ar arg_specs=(
        ':database:'
        '--json[Print one JSON object per line.]'
        '--all[Print the done jobs kept too, with their exit status in --json.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach-queue_log() {
    local -i ret=1
    local -ar arg_specs=(
        ':database:'
        ':id:'
        '--follow[Print what it writes next, until it ends.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach-queue_wait() {
    local -i ret=1
    local -ar arg_specs=(
        ':database:'
        ':id:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach-queue_retry() {
    local -i ret=1
    local -ar arg_specs=(
        ':database:'
        '*:ids:'
        '--failed[Every failed job.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach-queue_remove() {
    local -i ret=1
    local -ar arg_specs=(
        ':database:'
        ':id:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach-queue_clean() {
    local -i ret=1
    local -ar arg_specs=(
        ':database:'
        '--failed[Remove the failed jobs too.]'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach-queue_pause() {
    local -i ret=1
    local -ar arg_specs=(
        ':database:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach-queue_resume() {
    local -i ret=1
    local -ar arg_specs=(
        ':database:'
        '--version[Show the version.]'
        '(-h --help)'{-h,--help}'[Show help information.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

_reach-queue_help() {
    local -i ret=1
    local -ar arg_specs=(
        '*:subcommands:'
        '--version[Show the version.]'
    )
    _arguments -w -s -S : "${arg_specs[@]}" && ret=0

    return "${ret}"
}

if [[ "${funcstack[1]}" = _reach-queue ]]; then
    _reach-queue "${@}"
else
    compdef _reach-queue reach-queue
fi
