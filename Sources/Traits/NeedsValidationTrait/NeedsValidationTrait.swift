// Built before NetworkReachabilityValidation, so that a build without its trait stops here with one line that names
// it, instead of a "no such module 'AsyncHTTPClient'" and the errors after it.
#if !Validation
    #error("NetworkReachabilityValidation needs the package trait Validation (AsyncHTTPClient): .package(url: …, from: …, traits: [\"Validation\"]); NetworkReachabilityValidationCore needs none")
#endif
