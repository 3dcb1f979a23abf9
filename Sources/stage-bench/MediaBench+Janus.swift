import Foundation
import NIOCore
import NIOPosix
import StageTransport

/// The same load through Janus's VideoRoom: publishers join and publish with our offer;
/// subscribers join with `feed`, take Janus's offer and answer it.
extension MediaBench {
    func measureJanus(context: DTLSContext, group: MultiThreadedEventLoopGroup) async throws -> Result {
        guard let janusAddress else {
            throw BenchError("janus: pass --janus-address (run through scripts/bench-media.sh, which makes a network namespace for it)")
        }
        let allowed: @Sendable (String) -> Bool = { $0 == janusAddress }
        let janus = try JanusServer()
        try await janus.start(publishers: publishers)
        defer { janus.stop() }
        guard let pid = janus.processIdentifier else { throw BenchError("janus is not running") }
        let api = JanusAPI(url: janus.apiURL)
        var senders: [ClientPeerConnection] = [], ssrcs: [UInt32] = [], feeds: [Int] = []
        for index in 0..<publishers {
            let session = try await api.createSession(), handle = try await api.attach(session: session)
            let joined = try await api.message(session: session, handle: handle,
                                               body: ["request": "join", "ptype": "publisher", "room": janus.room, "display": "pub\(index)"])
            guard let data = (joined["plugindata"] as? [String: Any])?["data"] as? [String: Any],
                  let feed = (data["id"] as? NSNumber)?.intValue else { throw BenchError("janus join: \(joined)") }
            let peer = ClientPeerConnection(tracks: [.init(mid: "0", kind: .video, direction: .sendonly)], context: context, eventLoop: group.next())
            try await peer.open(host: janusAddress)
            let published = try await api.message(session: session, handle: handle, body: ["request": "publish", "audio": false, "video": true],
                                                  jsep: ["type": "offer", "sdp": peer.offer()])
            guard let answer = (published["jsep"] as? [String: Any])?["sdp"] as? String else { throw BenchError("janus publish: \(published)") }
            peer.allowedAddress = allowed
            try await peer.connect(answer: answer)
            senders.append(peer); ssrcs.append(peer.tracks[0].ssrc); feeds.append(feed)
        }
        let stats = ReceiveStats()
        var receivers: [ClientPeerConnection] = []
        for _ in 0..<subscribersPerPublisher {
            for feed in feeds {
                let session = try await api.createSession(), handle = try await api.attach(session: session)
                let offered = try await api.message(session: session, handle: handle,
                                                    body: ["request": "join", "ptype": "subscriber", "room": janus.room, "feed": feed])
                guard let offer = (offered["jsep"] as? [String: Any])?["sdp"] as? String else { throw BenchError("janus subscribe: \(offered)") }
                let peer = ClientPeerConnection(tracks: [], context: context, eventLoop: group.next())
                peer.allowedAddress = allowed
                peer.onRTP = { stats.record($0) }
                try await peer.open(host: janusAddress)
                let answer = try peer.answer(to: offer)
                _ = try await api.message(session: session, handle: handle, body: ["request": "start", "room": janus.room],
                                          jsep: ["type": "answer", "sdp": answer])
                try await peer.connect(answer: offer)
                receivers.append(peer)
            }
        }
        let result = try await run(senders: senders, ssrcs: ssrcs, stats: stats) { processCPUSeconds(pid: pid) }
        for peer in senders + receivers { await peer.close() }
        return result
    }
}
