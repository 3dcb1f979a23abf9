import Crypto

extension SRTPKeyingMaterial {
    /// The profile pipes use: AEAD_AES_128_GCM (RFC 7714), the one DTLS negotiates first here
    /// (`DTLSContext.srtpProfiles`).
    public static let pipeProfile = Profile.aeadAes128Gcm

    /// Fresh keys for the two ends of one pipe (`PipeTransport`): a master key and salt per
    /// direction from the CSPRNG (swift-crypto's `SymmetricKey`), so `forA.local` is
    /// `forB.remote` and `forA.remote` is `forB.local`. No DTLS: each end is handed its half over
    /// a channel that already authenticates (in memory in one process; the cluster's control
    /// channel between machines), and must keep it secret.
    ///
    /// Use a pair for one pipe only, and make a new one for a new pipe: one master key must never
    /// protect the same SSRC and packet index twice (RFC 3711 §9.1; under GCM a repeated IV gives
    /// the plaintext and the authentication key away, RFC 7714's security considerations).
    public static func pipePair(profile: Profile = pipeProfile) -> (forA: SRTPKeyingMaterial, forB: SRTPKeyingMaterial) {
        let length = profile.keyLength + profile.saltLength
        let aToB = randomBytes(length), bToA = randomBytes(length)
        return (SRTPKeyingMaterial(profile: profile, local: aToB, remote: bToA),
                SRTPKeyingMaterial(profile: profile, local: bToA, remote: aToB))
    }

    private static func randomBytes(_ count: Int) -> [UInt8] {
        SymmetricKey(size: SymmetricKeySize(bitCount: count * 8)).withUnsafeBytes { Array($0) }
    }
}
