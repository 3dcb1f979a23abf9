import Foundation
import NIOCore
import StageSubprocess
import StageTransport
import StageWire

/// Synthetic media: each packet carries a fake VP8 descriptor, the publisher index, a
/// sequence number and its send time, so receivers measure latency and loss exactly.
enum SyntheticPacket {
    static let size = 1200

    /// The monotonic clock, shared by senders and receivers of this process.
    static func nanosecondsSinceStart() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    /// RTP header (PT 96, marker on every 8th packet) + payload with publisher, counter, time.
    static func make(ssrc: UInt32, sequence: UInt16, publisher: UInt32, counter: UInt32, into buffer: inout [UInt8]) {
        let timestamp = UInt32(truncatingIfNeeded: nanosecondsSinceStart() / 11_111)   // 90 kHz
        buffer.withUnsafeMutableBytes { p in
            p[0] = 0x80; p[1] = (counter % 8 == 7 ? 0x80 : 0) | 96
            p.storeBytes(of: sequence.bigEndian, toByteOffset: 2, as: UInt16.self)
            p.storeBytes(of: timestamp.bigEndian, toByteOffset: 4, as: UInt32.self)
            p.storeBytes(of: ssrc.bigEndian, toByteOffset: 8, as: UInt32.self)
            p[12] = 0x10   // VP8 descriptor: S=1
            p.storeBytes(of: publisher, toByteOffset: 13, as: UInt32.self)
            p.storeBytes(of: counter, toByteOffset: 17, as: UInt32.self)
            p.storeBytes(of: nanosecondsSinceStart(), toByteOffset: 21, as: UInt64.self)
        }
    }

    /// (publisher, counter, latency ns) of a received packet. The payload is found by
    /// `RTPHeader.parse`: a server that writes extensions for its subscriber (transport-cc) moves it.
    static func read(_ packet: UnsafeMutableRawBufferPointer) -> (publisher: UInt32, counter: UInt32, latency: UInt64)? {
        let bytes = UnsafeRawBufferPointer(packet)
        guard let payload = try? RTPHeader.parse(bytes).payload, payload.count >= 17 else { return nil }
        let start = payload.lowerBound
        let sent = bytes.loadUnaligned(fromByteOffset: start + 9, as: UInt64.self)
        let now = nanosecondsSinceStart()
        return (bytes.loadUnaligned(fromByteOffset: start + 1, as: UInt32.self), bytes.loadUnaligned(fromByteOffset: start + 5, as: UInt32.self),
                now > sent ? now - sent : 0)
    }
}

/// What the receivers saw: packets, latency samples, per-publisher counters.
final class ReceiveStats: @unchecked Sendable {
    private let lock = NSLock()
    private var latencies: [UInt64] = []
    private(set) var received = 0
    /// The same, per group of receivers (the server's media port each was answered with).
    private var groups: [Int: (received: Int, latencies: [UInt64])] = [:]
    var measuring = false

    func record(_ packet: UnsafeMutableRawBufferPointer, group: Int = 0) {
        guard measuring, let sample = SyntheticPacket.read(packet) else { return }
        lock.lock()
        received += 1
        groups[group, default: (0, [])].received += 1
        if received % 4 == 0 {
            latencies.append(sample.latency)
            groups[group, default: (0, [])].latencies.append(sample.latency)
        }
        lock.unlock()
    }

    func snapshot() -> (received: Int, latenciesMicroseconds: [Double]) {
        lock.lock()
        defer { lock.unlock() }
        return (received, latencies.map { Double($0) / 1000 })
    }

    /// Per group: what arrived and its latencies (µs).
    func groupSnapshots() -> [Int: (received: Int, latenciesMicroseconds: [Double])] {
        lock.lock()
        defer { lock.unlock() }
        return groups.mapValues { ($0.received, $0.latencies.map { Double($0) / 1000 }) }
    }
}

/// Paces `rate` packets per second from each publisher, on its event loop, for `duration`.
func sendLoad(from publishers: [ClientPeerConnection], ssrcs: [UInt32], rate: Int, duration: Duration) async throws -> Int {
    let tick: TimeAmount = .milliseconds(10)
    let ticks = Int(duration.components.seconds) * 100
    var sent = 0
    try await withThrowingTaskGroup(of: Int.self) { group in
        for (index, publisher) in publishers.enumerated() {
            let ssrc = ssrcs[index]
            group.addTask {
                let promise = publisher.eventLoop.makePromise(of: Int.self)
                publisher.eventLoop.execute {
                    let pacer = Pacer()
                    publisher.eventLoop.scheduleRepeatedTask(initialDelay: .zero, delay: tick) { task in
                        // Due by the end of tick n: rate × n / 100 packets (rates under 100 a second hold too).
                        for _ in 0..<(rate * (pacer.ticks + 1) / 100 - rate * pacer.ticks / 100) {
                            SyntheticPacket.make(ssrc: ssrc, sequence: UInt16(truncatingIfNeeded: pacer.counter), publisher: UInt32(index),
                                                 counter: pacer.counter, into: &pacer.buffer)
                            pacer.buffer.withUnsafeBytes { _ = publisher.sendRTP($0, flush: false) }
                            pacer.counter += 1
                        }
                        publisher.flush()
                        pacer.ticks += 1
                        if pacer.ticks >= ticks {
                            task.cancel()
                            promise.succeed(Int(pacer.counter))
                        }
                    }
                }
                return try await promise.futureResult.get()
            }
        }
        for try await count in group { sent += count }
    }
    return sent
}

/// One publisher's sending state; touched only on its event loop.
final class Pacer: @unchecked Sendable {
    var buffer = [UInt8](repeating: 0, count: SyntheticPacket.size)
    var counter: UInt32 = 0
    var ticks = 0
}

/// CPU seconds (user + system) a process has used so far, from /proc.
func processCPUSeconds(pid: Int32) -> Double {
    ProcStat.read("/proc/\(pid)/stat")?.cpuSeconds() ?? .nan
}

/// CPU seconds of each thread of `pid` whose name (/proc/<pid>/task/<tid>/comm) starts with
/// `namePrefix`, by name.
func threadCPUSeconds(pid: Int32, namePrefix: String) -> [String: Double] {
    let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task")) ?? []
    var seconds: [String: Double] = [:]
    for task in tasks {
        guard let name = try? String(contentsOfFile: "/proc/\(pid)/task/\(task)/comm", encoding: .utf8)
            .trimmingCharacters(in: .whitespacesAndNewlines), name.hasPrefix(namePrefix),
              let cpu = ProcStat.read("/proc/\(pid)/task/\(task)/stat")?.cpuSeconds() else { continue }
        seconds[name] = cpu
    }
    return seconds
}
