import CNetlink
import Foundation
import Testing

import NetworkReachabilityKit
@testable import NetworkReachabilityCore
@testable import NetworkReachabilityLinux
@testable import NetworkReachabilityPOSIX

/// Classification on fixture sysfs trees built in a temporary directory.
struct InterfaceClassifierTests {
    private let ether = UInt16(ARPHRD_ETHER)
    private let rawIP = UInt16(ARPHRD_RAWIP)
    private let none = UInt16(ARPHRD_NONE)

    /// Builds `class/net/NAME` entries: files with contents, directories, and a `device/driver` link.
    private func sysfs(_ build: (String) throws -> Void) throws -> String {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("sysfs-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: "\(root)/class/net", withIntermediateDirectories: true)
        try build(root)
        return root
    }

    private func interface(
        _ root: String, _ name: String, uevent: String? = nil, directories: [String] = [], driver: String? = nil
    ) throws {
        let directory = "\(root)/class/net/\(name)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try (uevent ?? "INTERFACE=\(name)\nIFINDEX=3\n").write(toFile: "\(directory)/uevent", atomically: true, encoding: .utf8)
        for sub in directories {
            try FileManager.default.createDirectory(atPath: "\(directory)/\(sub)", withIntermediateDirectories: true)
        }
        if let driver {
            let driverDirectory = "\(root)/bus/usb/drivers/\(driver)"
            try FileManager.default.createDirectory(atPath: driverDirectory, withIntermediateDirectories: true)
            try FileManager.default.createDirectory(atPath: "\(directory)/device", withIntermediateDirectories: true)
            try FileManager.default.createSymbolicLink(atPath: "\(directory)/device/driver", withDestinationPath: driverDirectory)
        }
    }

    @Test func classifiesEachKindFromItsSysfsFacts() throws {
        let root = try sysfs { root in
            try interface(root, "wlan0", directories: ["wireless"])
            try interface(root, "wlan1", directories: ["phy80211"])
            try interface(root, "wlp2s0", uevent: "DEVTYPE=wlan\nINTERFACE=wlp2s0\n")
            try interface(root, "wwan0", uevent: "DEVTYPE=wwan\nINTERFACE=wwan0\n")
            try interface(root, "rmnet0", driver: "qmi_wwan")
            try interface(root, "mbim0", driver: "cdc_mbim")
            try interface(root, "usb0", driver: "cdc_ether")
            try interface(root, "veth0", uevent: "INTERFACE=veth0\n")
            try interface(root, "tun0", uevent: "DEVTYPE=tun\n")
        }
        defer { try? FileManager.default.removeItem(atPath: root) }
        let classifier = InterfaceClassifier(sysfsRoot: root)
        #expect(classifier.classify(name: "wlan0", hardwareType: ether, isLoopback: false) == .wifi)
        #expect(classifier.classify(name: "wlan1", hardwareType: ether, isLoopback: false) == .wifi)
        #expect(classifier.classify(name: "wlp2s0", hardwareType: ether, isLoopback: false) == .wifi)
        #expect(classifier.classify(name: "wwan0", hardwareType: none, isLoopback: false) == .cellular)
        #expect(classifier.classify(name: "rmnet0", hardwareType: rawIP, isLoopback: false) == .cellular)
        #expect(classifier.classify(name: "mbim0", hardwareType: none, isLoopback: false) == .cellular)
        #expect(classifier.classify(name: "usb0", hardwareType: none, isLoopback: false) == .other)
        #expect(classifier.classify(name: "rmnet0", hardwareType: ether, isLoopback: false) == .wiredEthernet)
        #expect(classifier.classify(name: "veth0", hardwareType: ether, isLoopback: false) == .wiredEthernet)
        #expect(classifier.classify(name: "tun0", hardwareType: none, isLoopback: false) == .other)
        #expect(classifier.classify(name: "lo", hardwareType: UInt16(ARPHRD_LOOPBACK), isLoopback: true) == .loopback)
        #expect(classifier.classify(name: "absent", hardwareType: ether, isLoopback: false) == .wiredEthernet)
        #expect(classifier.classify(name: "../../etc", hardwareType: ether, isLoopback: false) == .other)
    }

    @Test func anIndexReusedUnderAnotherNameOrHardwareTypeIsClassifiedAgain() throws {
        let root = try sysfs { root in
            try interface(root, "wlan0", directories: ["wireless"])
            try interface(root, "rmnet0", driver: "qmi_wwan")
        }
        defer { try? FileManager.default.removeItem(atPath: root) }
        let classifier = InterfaceClassifier(sysfsRoot: root)
        func type(_ name: String, _ hardwareType: UInt16) -> NetworkInterface.InterfaceType {
            let link = Link(
                index: 4, name: name, hardwareType: hardwareType, flags: cnl_iff_up(),
                operationalState: cnl_if_oper_up(), kind: nil)
            return classifier.interface(for: link).type
        }
        #expect(type("wlan0", ether) == .wifi)
        #expect(type("wlan0", ether) == .wifi)  // from the cache
        #expect(type("rmnet0", rawIP) == .cellular)  // index 4 now names another interface
        #expect(type("rmnet0", ether) == .wiredEthernet)  // same name, another hardware type
    }

    @Test func cellularInterfacesAreExpensiveAndSetWWAN() throws {
        let root = try sysfs { try interface($0, "wwan0", uevent: "DEVTYPE=wwan\n") }
        defer { try? FileManager.default.removeItem(atPath: root) }
        let link = Link(
            index: 7, name: "wwan0", hardwareType: none, flags: cnl_iff_up() | cnl_iff_lower_up(),
            operationalState: cnl_if_oper_unknown(), kind: nil)
        let described = InterfaceClassifier(sysfsRoot: root).interface(for: link)
        #expect(described.type == .cellular)
        let onLink = RoutePath(type: .unicast, gateway: nil, outputInterface: 7, preferredSource: nil)
        #expect(
            TargetEvaluator.flags(route: onLink, link: link, interfaceType: described.type) == [.reachable, .isDirect, .isWWAN])
    }

    @Test func deviceTypeIsReadFromUevent() {
        #expect(InterfaceClassifier.deviceType(uevent: "A=1\nDEVTYPE=wlan\n") == "wlan")
        #expect(InterfaceClassifier.deviceType(uevent: "A=1\n") == nil)
        #expect(InterfaceClassifier.deviceType(uevent: nil) == nil)
    }
}
