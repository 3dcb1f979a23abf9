import Foundation
import StageProtocol

/// The checks every entry point applies to a participant token before letting it in
/// (signaling socket, WHIP, WHEP): signature and expiry, the stage it names, revocation.
struct TokenAdmission: Sendable {
    let verifier: ParticipantTokenVerifier
    let store: Store
    let names: ResourceNames

    /// - Parameter stageId: the stage the caller is for (the socket's path); nil to take the token's own.
    func admit(_ token: String, stageId: String? = nil) async throws(ServerMessage.SignalError) -> ParticipantTokenClaims {
        let claims: ParticipantTokenClaims
        do {
            claims = try await verifier.verify(token, importedKeys: { [store, names] kid in
                try await ControlPlane.importedKeys(store, arn: kid, names: names)
            })
        } catch {
            throw .init(code: error.code, message: error.reason)
        }
        let expected = stageId ?? claims.topic
        guard claims.topic == expected, claims.resource == names.stage(expected) else {
            throw .init(code: .invalidToken, message: "token: issued for stage \(claims.resource), but this endpoint is for stage \(expected)")
        }
        do {
            guard try await store.stage(id: expected) != nil else {
                throw ServerMessage.SignalError(code: .stageNotFound, message: "stage \(names.stage(expected)) does not exist (deleted?)")
            }
            guard try await !store.isRevoked(participantId: claims.jti) else {
                throw ServerMessage.SignalError(code: .participantRevoked,
                                                message: "participant \(claims.jti) was disconnected from this stage and cannot join again")
            }
        } catch let refusal as ServerMessage.SignalError {
            throw refusal
        } catch {
            throw .init(code: .internalError, message: "internal error while checking the token")
        }
        return claims
    }
}
