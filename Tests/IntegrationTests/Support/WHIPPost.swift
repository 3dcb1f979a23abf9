import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Testing

/// POSTs an SDP offer to a WHIP or WHEP endpoint with a bearer token (RFC 9725 §4.2), expects
/// 201 Created, and returns the answer.
func postSDPOffer(_ url: URL, _ offer: String, token: String) async throws -> String {
    var request = URLRequest(url: url)
    request.httpMethod = "POST"
    request.httpBody = Data(offer.utf8)
    request.setValue("application/sdp", forHTTPHeaderField: "Content-Type")
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    let (data, response) = try await URLSession.shared.data(for: request)
    #expect((response as? HTTPURLResponse)?.statusCode == 201)
    return String(decoding: data, as: UTF8.self)
}
