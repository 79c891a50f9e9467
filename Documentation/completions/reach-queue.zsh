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
            'list:Print one line per job: id, state, attempts, conditions and command; done jobs are gone.'
            'remove:Remove a job whatever its state; if its command runs, the worker stops it (SIGTERM).'
            'help:Show subcommand help information.'
        )
        _describe -V subcommand subcommands && ret=0
        ;;
    arg)
        case "${words[1]}" in
        add|run|list|remove|help)
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
        '*--when[Conditions beyond a reachable target, comma-separated\: validated, unmetered, not-roaming.]:when:'
        '--require[Reachable only through an interface of this type (wifi, wiredEthernet, cellular, loopback, other).]:require:{__reach-queue_complete "${___require[@]}"}'
        '*--prohibit[Never through an interface of this type; repeat for more (--prohibit cellular\: no mobile data).]:prohibit:{__reach-queue_complete "${___prohibit[@]}"}'
        '--target[What must be reachable\: internet, a host name, a URL or an address.]:target:'
        '--key[A job already queued under this key is replaced by this one (or kept, with --keep).]:key:'
        '--keep[With --key\: keep the job queued under it, and print its id, instead of replacing it.]'
        '--attempts[The most attempts before the job is kept as failed.]:attempts:'
        '--retry-delay[Seconds to wait after the first failed attempt; each further failure doubles it, up to an hour.]:retry-delay:'
        '--expires[Seconds from now after which the job is failed rather than run.]:expires:'
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
