// Links every example with the products it imports, and runs those that await nothing (Runnable.swift in each target):
// a module that a product does not link fails here at link time, and an example that traps or throws fails here when
// it runs, not in an adopter's app. Those that wait for the network are compiled only.
#if canImport(Glibc)
    import Glibc
#endif
import ReadmeKitExamples
import ReadmeRadioExamples
import ReadmeTestingExamples

// An example that hangs fails the run in 60 s rather than holding CI.
alarm(60)
let examples = readmeKitExamples + readmeRadioExamples + readmeTestingExamples
for (source, run) in examples {
    try await run()
    print("ran the example at \(source)")
}
print("the ports and the README's examples build and link; \(examples.count) examples ran")
