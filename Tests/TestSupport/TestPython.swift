import Foundation

/// The Python the tests run: Debian's `/usr/bin/python3`, with `.build-tools/python` first on its path, where
/// `scripts/install-test-python` puts from PyPI what the system's modules lack (python-dbusmock's `modemmanager`
/// template, which Debian 12's python3-dbusmock does not have; Prometheus' text parser). Without that folder, the
/// system's own modules are used.
public enum TestPython {
    /// The interpreter.
    public static let interpreter = "/usr/bin/python3"

    /// The folder `scripts/install-test-python` installs into.
    public static var modules: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build-tools/python").path
    }

    /// The command that runs the interpreter with `arguments`, the folder first on its path.
    public static func command(_ arguments: [String]) -> [String] {
        ["env", "PYTHONPATH=\(modules)", interpreter] + arguments
    }

    /// Where `module` is imported from and its version, or why it cannot be: for a failure's one line.
    public static func describe(_ module: String) -> String {
        let script = "import \(module) as m; print(getattr(m, '__version__', '?'), 'at', m.__path__[0])"
        guard let result = try? Command.run(command(["-c", script]), timeout: 30), result.status == 0 else {
            return "\(module) cannot be imported"
        }
        return "\(module) \(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))"
    }
}
