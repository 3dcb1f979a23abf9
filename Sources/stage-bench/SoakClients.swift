import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import StageTransport

/// A synthetic simulcast publisher: one WHIP peer connection sending three VP8 layers (rids
/// q, h, f at a quarter, half and all of the top layer's rate), a keyframe on every layer once
/// a second. Its state is touched only on its event loop (`SoakSender` drives it).
final class SoakPublisher: @unchecked Sendable {
    let index: Int
    let token: String
    let participantId: String
    /// Nil while disconnected (before WHIP, after the server was killed).
    var peer: ClientPeerConnection?
    var resource: URL?
    /// Muted: sends nothing (what a client does when its camera is turned off); counters stop.
    var muted = false
    var counters: [UInt32] = [0, 0, 0]
    var sequences: [UInt16] = [0, 0, 0]
    /// Layers whose next packet starts a keyframe (after connecting or unmuting).
    var keyframeDue = [true, true, true]
    var buffer = [UInt8](repeating: 0, count: SoakPacket.size)

    init(index: Int, token: String, participantId: String) {
        self.index = index
        self.token = token
        self.participantId = participantId
    }
}

/// A subscriber: one WHEP peer connection per publisher, all on the layer it prefers.
final class SoakSubscriber: @unchecked Sendable {
    let token: String
    let layer: String
    var peers: [ClientPeerConnection] = []
    var resources: [URL] = []

    init(token: String, layer: String) {
        self.token = token
        self.layer = layer
    }
}

/// WHIP/WHEP for the soak's clients against one server.
struct SoakConnector: Sendable {
    let baseURL: URL
    let context: DTLSContext
    /// The publishers' loop (the sender paces them all from it).
    let eventLoop: any EventLoop
    /// Subscribers' peer connections spread over the group's loops.
    let group: any EventLoopGroup
    let counters: SoakCounters

    /// Publishes: WHIP offer with the three rids, answer, ICE + DTLS.
    func publish(_ publisher: SoakPublisher) async throws {
        let track = ClientPeerConnection.Track(mid: "0", kind: .video, direction: .sendonly, rids: SoakPacket.rids)
        let peer = ClientPeerConnection(tracks: [track], context: context, eventLoop: eventLoop)
        try await peer.open(host: "127.0.0.1")
        let (answer, location) = try await post(baseURL.appendingPathComponent("whip"), offer: peer.offer(), token: publisher.token)
        try await peer.connect(answer: answer)
        try await eventLoop.submit {
            publisher.peer = peer
            publisher.resource = location
            publisher.keyframeDue = [true, true, true]
        }.get()
    }

    /// Subscribes to every publisher, in parallel, on the subscriber's layer.
    func subscribe(_ subscriber: SoakSubscriber, to publisherIds: [String]) async throws {
        let results = try await withThrowingTaskGroup(of: (ClientPeerConnection, URL).self) { group in
            for publisherId in publisherIds {
                group.addTask {
                    let peer = ClientPeerConnection(tracks: [.init(mid: "0", kind: .video, direction: .recvonly)], context: context,
                                                    eventLoop: self.group.next())
                    let subscription = SoakSubscription(counters: counters)
                    peer.onRTP = { subscription.receive($0) }
                    try await peer.open(host: "127.0.0.1")
                    var components = URLComponents(url: baseURL.appendingPathComponent("whep/\(publisherId)"), resolvingAgainstBaseURL: false)
                    components?.queryItems = [URLQueryItem(name: "layer", value: subscriber.layer)]
                    guard let url = components?.url else { throw BenchError("whep: bad URL") }
                    let (answer, location) = try await post(url, offer: peer.offer(), token: subscriber.token)
                    try await peer.connect(answer: answer)
                    return (peer, location)
                }
            }
            var results: [(ClientPeerConnection, URL)] = []
            for try await result in group { results.append(result) }
            return results
        }
        subscriber.peers = results.map(\.0)
        subscriber.resources = results.map(\.1)
    }

    /// Leaves properly: DELETE every resource (RFC 9725 §4.2), then close with close_notify.
    func leave(_ subscriber: SoakSubscriber) async {
        for resource in subscriber.resources { await delete(resource, token: subscriber.token) }
        for peer in subscriber.peers { await peer.close() }
    }

    /// Vanishes: stops and drops the sockets, no DELETE, no close_notify — only the server's
    /// consent timeout (RFC 7675) can tell it is gone.
    func vanish(_ subscriber: SoakSubscriber) async {
        for peer in subscriber.peers {
            try? await peer.eventLoop.submit {
                peer.onRTP = nil
                peer.receiveTimeout = .zero   // its liveness timer ends itself at the next tick
            }.get()
            await peer.agent.close()
        }
    }

    func post(_ url: URL, offer: String, token: String) async throws -> (answer: String, location: URL) {
        var request = URLRequest(url: url)
        request.httpMethod = "POST"
        request.httpBody = Data(offer.utf8)
        request.timeoutInterval = 30
        request.setValue("application/sdp", forHTTPHeaderField: "Content-Type")
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as? HTTPURLResponse
        guard http?.statusCode == 201, let location = http?.value(forHTTPHeaderField: "Location"),
              let url = URL(string: location, relativeTo: baseURL) else {
            throw BenchError("\(url.path): \(http?.statusCode ?? 0) \(String(decoding: data, as: UTF8.self))")
        }
        return (String(decoding: data, as: UTF8.self), url.absoluteURL)
    }

    func delete(_ url: URL, token: String) async {
        var request = URLRequest(url: url)
        request.httpMethod = "DELETE"
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        _ = try? await URLSession.shared.data(for: request)
    }
}
