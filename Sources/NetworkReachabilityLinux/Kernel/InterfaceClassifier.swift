import NetworkReachabilityPOSIX
import NetworkReachabilityCore
import CNetlink

/// Classifies an interface as Wi-Fi, cellular, wired Ethernet, loopback or other from sysfs and the
/// link's hardware type. The sysfs root is injectable so fixture trees can stand in for `/sys`.
///
/// Results are cached per (index, name, hardware type): an interface's kind does not change while it exists.
final class InterfaceClassifier: InterfaceClassifying {
    /// A classification, and the name and hardware type it was made for.
    private struct Classified {
        var name: String
        var hardwareType: UInt16
        var type: NetworkInterface.InterfaceType
    }
    /// Drivers of cellular modems that present raw-IP links.
    static let cellularDrivers: Set<String> = [
        "qmi_wwan", "cdc_mbim", "mhi_net", "ipa", "rmnet", "huawei_cdc_ncm", "sierra_net", "qmi_wwan_q",
    ]

    /// The directory that holds `class/net`, normally `/sys`.
    let sysfsRoot: String

    // Guarded by its lock. Keyed by index alone, so a read hashes an integer rather than a name; an entry
    // counts only while its name and hardware type still match the link's.
    private let cache = Locked([Int: Classified]())

    init(sysfsRoot: String = "/sys") {
        self.sysfsRoot = sysfsRoot
    }

    /// The public description of `link`, classified once and then served from the cache.
    func interface(for link: Link) -> NetworkInterface {
        NetworkInterface(name: link.name, index: link.index, type: interfaceType(of: link), linkKind: link.kind)
    }

    /// The kind of interface `link` is, classified once and then served from the cache.
    func interfaceType(of link: Link) -> NetworkInterface.InterfaceType {
        let cached = cache.withLock { $0[link.index] }
        let type: NetworkInterface.InterfaceType
        if let cached, cached.name == link.name, cached.hardwareType == link.hardwareType {
            type = cached.type
        } else {
            type = classify(name: link.name, hardwareType: link.hardwareType, isLoopback: link.isLoopback)
            cache.withLock {
                if $0.count > 4096 { $0.removeAll() }  // bounded: interfaces come and go in long-lived processes
                $0[link.index] = Classified(name: link.name, hardwareType: link.hardwareType, type: type)
            }
        }
        return type
    }

    /// The type of the link named `name` with hardware type `hardwareType`.
    func classify(name: String, hardwareType: UInt16, isLoopback: Bool) -> NetworkInterface.InterfaceType {
        if isLoopback || hardwareType == UInt16(ARPHRD_LOOPBACK) { return .loopback }
        // A name with a slash or dot segment would escape the sysfs tree; no real interface has one.
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return .other }
        let directory = "\(sysfsRoot)/class/net/\(name)"
        let deviceType = Self.deviceType(uevent: SmallFile.text("\(directory)/uevent", limit: 8192))
        if deviceType == "wlan" || SystemCall.pathExists("\(directory)/wireless")
            || SystemCall.pathExists("\(directory)/phy80211")
        {
            return .wifi
        }
        if deviceType == "wwan" { return .cellular }
        if hardwareType == UInt16(ARPHRD_RAWIP) || hardwareType == UInt16(ARPHRD_NONE),
            let driver = SystemCall.linkTargetName("\(directory)/device/driver"),
            Self.cellularDrivers.contains(driver)
        {
            return .cellular
        }
        if hardwareType == UInt16(ARPHRD_ETHER) { return .wiredEthernet }
        return .other
    }

    /// The `DEVTYPE=` value of a `uevent` file, if any.
    static func deviceType(uevent: String?) -> String? {
        guard let uevent else { return nil }
        for line in uevent.split(whereSeparator: \.isNewline) where line.hasPrefix("DEVTYPE=") {
            return String(line.dropFirst("DEVTYPE=".count))
        }
        return nil
    }
}
