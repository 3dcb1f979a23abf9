internal import COpenSSL

extension SRTPKeyingMaterial {
    /// The keys and salts of `ssl`'s DTLS association, ours as `local` by our `role`.
    static func export(from ssl: OpaquePointer, role: DTLSEndpoint.Role) throws -> SRTPKeyingMaterial {
        guard let selected = SSL_get_selected_srtp_profile(ssl) else { throw DTLSError.noSRTPProfile }
        guard let profile = Profile(rawValue: UInt(selected.pointee.id)) else {
            throw DTLSError.unsupportedSRTPProfile(UInt(selected.pointee.id))
        }
        let k = profile.keyLength, s = profile.saltLength
        var material = [UInt8](repeating: 0, count: 2 * (k + s))
        let label = "EXTRACTOR-dtls_srtp"
        guard SSL_export_keying_material(ssl, &material, material.count, label, label.utf8.count, nil, 0, 0) == 1 else {
            throw DTLSError.openSSL("SSL_export_keying_material")
        }
        let clientKey = material[0..<k], serverKey = material[k..<2 * k]
        let clientSalt = material[2 * k..<2 * k + s], serverSalt = material[2 * k + s..<2 * (k + s)]
        let client = Array(clientKey + clientSalt), server = Array(serverKey + serverSalt)
        return role == .client
            ? SRTPKeyingMaterial(profile: profile, local: client, remote: server)
            : SRTPKeyingMaterial(profile: profile, local: server, remote: client)
    }
}
