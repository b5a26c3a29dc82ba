import CFiberShims
import CLibUV
#if canImport(Glibc)
import Glibc
#endif

/// The I/O of a `ConnectionMonitor`: a netlink socket polled on one loop, a
/// quiet-period timer, and the state machine they feed. Confined to the loop.
///
/// Lifecycle: `open` (on the loop) creates the socket, inside a network
/// namespace when asked, and a `uv_poll` handle for it; `start()` asks for the
/// first read of the tables. Each readable event drains the socket into the
/// machine, and the actions it returns are performed here. `close()` (safe
/// twice) closes the timer and the poll handle; the poll handle's close
/// callback closes the descriptor and calls `onStopped`. Loop shutdown closes
/// the handles the same way.
final class RouteWatcher: @unchecked Sendable {
    // @unchecked: every field is touched only on `loop`'s thread; the object
    // crosses threads only to be closed there through `loop.execute`.
    private let loop: EventLoop
    private let descriptor: Int32
    private let poll: UVHandle
    private let timer: LoopTimer
    private let quietPeriod: Duration
    private var machine: ConnectionMonitorStateMachine
    private let publish: (ConnectionMonitor.Status) -> Void
    /// Datagrams read per readable event before the loop gets a turn (the poll is level-triggered).
    private static let readBudget = 64

    /// Opens the socket and its poll handle. Call on the loop thread.
    ///
    /// - Parameters:
    ///   - publish: each settled status (the first one ends the start), on the loop thread.
    ///   - stopped: once, when the socket is closed (by `close()`, loop shutdown or a socket failure).
    /// - Throws: `ConnectionMonitorError` `.namespaceUnavailable`, `.socketFailed`, `.eventLoopShutdown`.
    init(on loop: EventLoop, networkNamespace: String?, quietPeriod: Duration,
         publish: @escaping (ConnectionMonitor.Status) -> Void,
         stopped: @escaping () -> Void) throws(ConnectionMonitorError) {
        let groups = UInt32(CFIBER_RTMGRP_LINK | CFIBER_RTMGRP_IPV4_IFADDR | CFIBER_RTMGRP_IPV6_IFADDR
                            | CFIBER_RTMGRP_IPV4_ROUTE | CFIBER_RTMGRP_IPV6_ROUTE)
        var error: Int32 = 0
        var step: Int32 = 0
        let path = networkNamespace.map(Self.namespacePath)
        let fd = path.map { cfiber_netlink_open($0, groups, &error, &step) } ?? cfiber_netlink_open(nil, groups, &error, &step)
        guard fd >= 0 else {
            throw ConnectionMonitorError(step == 2 ? .namespaceUnavailable : .socketFailed,
                                         networkNamespace: networkNamespace, code: error)
        }
        do {
            timer = try LoopTimer(on: loop)
        } catch {
            _ = cfiber_netlink_close(fd)
            throw ConnectionMonitorError(.eventLoopShutdown, networkNamespace: networkNamespace)
        }
        do {
            poll = try UVHandle.make(UV_POLL, on: loop, operation: "netlink poll") { uv_poll_init(loop.uvLoop, $0.poll, fd) }
        } catch {
            timer.close()
            _ = cfiber_netlink_close(fd)
            throw ConnectionMonitorError(.eventLoopShutdown, networkNamespace: networkNamespace)
        }
        self.loop = loop
        descriptor = fd
        self.quietPeriod = quietPeriod
        self.publish = publish
        // Sequence numbers differ from one socket to the next, so a late answer is never taken for another's.
        machine = ConnectionMonitorStateMachine(firstSequence: UInt32.random(in: 1...(UInt32.max / 2)))
        poll.onClose = { [fd] in
            _ = cfiber_netlink_close(fd)
            stopped()
        }
    }

    /// Where `ip netns` keeps the namespace called `name`; a name with a slash is taken as a path.
    static func namespacePath(_ name: String) -> String {
        name.contains("/") ? name : "/var/run/netns/\(name)"
    }

    /// Starts polling and asks for the first read of the tables.
    func start() {
        guard !poll.isClosing else { return }
        poll.onPoll = { [weak self] status, _ in self?.readable(status) }
        timer.setAction { [weak self] in self?.perform(self?.machine.quietPeriodEnded() ?? []) }
        guard uv_poll_start(poll.poll, Int32(UV_READABLE.rawValue), UVHandle.pollCallback) >= 0 else {
            close()
            return
        }
        perform(machine.started())
    }

    /// Stops everything; the descriptor is closed when the poll handle is. Safe twice.
    func close() {
        timer.close()
        poll.close()
    }

    private func readable(_ status: Int32) {
        guard status >= 0 else {
            close()
            return
        }
        let buffer = loop.loopReadBuffer
        for _ in 0..<Self.readBudget where !poll.isClosing {
            let count = cfiber_netlink_receive(descriptor, buffer.baseAddress, UInt(buffer.count))
            if count == -Int(EAGAIN) || count == -Int(EWOULDBLOCK) { return }
            if count == -Int(ENOBUFS) {
                perform(machine.overran())
                continue
            }
            if count < 0 {
                close()
                return
            }
            for item in NetlinkParser.items(in: UnsafeRawBufferPointer(rebasing: buffer[0..<count])) {
                perform(machine.received(enriched(item)))
            }
        }
    }

    /// `item` with what sysfs says about a link: whether it is wireless.
    private func enriched(_ item: NetlinkItem) -> NetlinkItem {
        guard case .link(var link, let deleted) = item.message, !deleted,
              link.hardwareType == Netlink.hardwareEthernet, let name = link.name,
              !name.isEmpty, !name.contains("/"), name != "." && name != ".." else { return item }
        link.isWireless = access("/sys/class/net/\(name)/wireless", F_OK) == 0
            || access("/sys/class/net/\(name)/phy80211", F_OK) == 0
        var copy = item
        copy.message = .link(link, deleted: false)
        return copy
    }

    private func perform(_ actions: [ConnectionMonitorStateMachine.Action]) {
        for action in actions {
            switch action {
            case .requestDump(let dump, let sequence):
                let type = switch dump {
                case .links: Netlink.getLink
                case .addresses: Netlink.getAddress
                case .routes: Netlink.getRoute
                }
                if cfiber_netlink_request_dump(descriptor, type, sequence) < 0 {
                    perform(machine.dumpFailed(sequence: sequence))
                }
            case .startQuietTimer:
                timer.restart(after: quietPeriod)
            case .stopQuietTimer:
                timer.stop()
            case .publish(let status):
                publish(status)
            }
        }
    }
}
