// Built before NetworkReachabilityQueue, so that a build without its trait stops here with one line that names it,
// instead of a "no such module 'GRDB'" and hundreds of errors after it.
#if !Queue
    #error("NetworkReachabilityQueue needs the package trait Queue (GRDB): .package(url: …, from: …, traits: [\"Queue\"])")
#endif
