import CoreMetrics

/// What a ``DurableWorkQueue`` records through swift-metrics: nothing unless the application bootstraps a backend
/// (`MetricsSystem.bootstrap`) or hands the queue a factory. Labels are fixed and dimensions bounded: nothing per job.
struct QueueMetrics: Sendable {
    /// Jobs in the file by state, after each look of the worker: `network_reachability_queue_jobs{state}`.
    private let jobs: [StoredJob.State: Gauge]
    /// Runs that ended, by outcome: `network_reachability_queue_attempts_total{outcome}`, where `succeeded` and
    /// `failed` are the handler's, and `interrupted` a run cut because its conditions stopped holding, the queue
    /// stopped or the job was removed (it spends no attempt).
    private let attempts: [Outcome: Counter]
    /// From the moment a job could run (submitted, or its retry due) to its start: the time it waited for its
    /// conditions and for the jobs ahead of it: `network_reachability_queue_wait_seconds`.
    private let waiting: Timer

    /// How a run ended.
    enum Outcome: String, CaseIterable {
        case succeeded, failed, interrupted
    }

    init(factory: any MetricsFactory) {
        jobs = Dictionary(
            uniqueKeysWithValues: [StoredJob.State.waiting, .blocked, .running, .retrying, .failed, .done].map { state in
                (
                    state,
                    Gauge(label: "network_reachability_queue_jobs", dimensions: [("state", state.rawValue)], factory: factory)
                )
            })
        attempts = Dictionary(
            uniqueKeysWithValues: Outcome.allCases.map { outcome in
                (
                    outcome,
                    Counter(
                        label: "network_reachability_queue_attempts_total", dimensions: [("outcome", outcome.rawValue)],
                        factory: factory)
                )
            })
        waiting = Timer(label: "network_reachability_queue_wait_seconds", preferredDisplayUnit: .seconds, factory: factory)
    }

    /// The file's jobs by state; a state with none is 0.
    func record(_ counts: [StoredJob.State: Int]) {
        for (state, gauge) in jobs { gauge.record(counts[state] ?? 0) }
    }

    func recordRun(_ outcome: Outcome) { attempts[outcome]?.increment() }

    /// A job started `milliseconds` after it could have.
    func recordWait(milliseconds: Int64) { waiting.recordMilliseconds(max(0, milliseconds)) }
}
