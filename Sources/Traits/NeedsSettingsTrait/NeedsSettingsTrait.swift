// Built before NetworkReachabilitySettings, so that a build without its trait stops here with one line that names it,
// instead of a "no such module 'Yams'" and errors after it.
#if !Settings
    #error("NetworkReachabilitySettings needs the package trait Settings (Yams): .package(url: …, from: …, traits: [\"Settings\"])")
#endif
