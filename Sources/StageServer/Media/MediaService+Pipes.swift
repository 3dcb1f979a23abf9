import StageTransport

/// Pipes between a stage's routers (mediasoup's pipeToRouter): a far router takes each
/// publisher its subscribers want from the origin once, over one pipe per far router — two
/// `PipeTransport`s, SRTP over UDP with keys handed over here (the channel that authenticates
/// both ends is this process) — and fans it out to them.
extension MediaService {
    /// Pipes `publisherId`'s producers from `origin` to `far`, opening the pipe first if there
    /// is none. Set-ups for one far router run one after another.
    func pipe(_ publisherId: String, from origin: MediaRouter, to far: MediaRouter) async throws {
        let task = pipeSetups.withLock { setups -> Task<Void, any Error> in
            let previous = setups[ObjectIdentifier(far)]
            let task = Task {
                _ = try? await previous?.value
                try await self.pipeNow(publisherId, from: origin, to: far)
            }
            setups[ObjectIdentifier(far)] = task
            return task
        }
        defer {
            pipeSetups.withLock { setups in
                if setups[ObjectIdentifier(far)] == task { setups[ObjectIdentifier(far)] = nil }
            }
        }
        try await task.value
    }

    private func pipeNow(_ publisherId: String, from origin: MediaRouter, to far: MediaRouter) async throws {
        let end = try await originEnd(from: origin, to: far)
        // The far end has its copies before the first packet leaves the origin.
        guard let descriptions = try await on(origin, { $0.unpiped(publisherId: publisherId, in: end) }), !descriptions.isEmpty else { return }
        _ = try await on(far) { router in
            for description in descriptions { router.pipeFromOrigin?.add(description, publisherId: publisherId) }
        }
        _ = try await on(origin) { _ in
            for description in descriptions { end.start(description.index) }
        }
    }

    /// The origin's end of the pipe to `far`, the pipe opened first if there is none: a socket
    /// on each worker, a key pair, each end connected to the other.
    private func originEnd(from origin: MediaRouter, to far: MediaRouter) async throws -> PipeOriginEnd {
        if let end = try await on(origin, { $0.pipe(to: far) }), let end { return end }
        let host = "127.0.0.1"
        let near = try await PipeTransport.open(host: host, on: origin.worker.eventLoop)
        let remote = try await PipeTransport.open(host: host, on: far.worker.eventLoop)
        let keys = SRTPKeyingMaterial.pipePair()
        let nearAddress = near.localAddress, remoteAddress = remote.localAddress
        try await far.worker.eventLoop.submit {
            try remote.connect(remote: nearAddress, keys: keys.forB)
            far.pipeFromOrigin = PipeFarEnd(transport: remote)
        }.get()
        let end = try await origin.worker.eventLoop.submit { () -> PipeOriginEnd in
            try near.connect(remote: remoteAddress, keys: keys.forA)
            let end = PipeOriginEnd(transport: near)
            end.onProducerClosed = { index in
                far.worker.eventLoop.execute { far.pipeFromOrigin?.remove(index) }
            }
            origin.addPipe(end, to: far)
            return end
        }.get()
        log.info("pipe opened", metadata: ["stage": "\(origin.stageId)", "from_worker": "\(origin.worker.index)",
                                           "to_worker": "\(far.worker.index)"])
        return end
    }

    /// `far` retired: its copies and its end close, then the origin's end.
    func closePipe(_ farEnd: PipeFarEnd, from origin: MediaRouter?, to far: MediaRouter) async {
        await farEnd.close()
        guard let origin, let end = try? await origin.worker.eventLoop.submit({ origin.removePipe(to: far) }).get() else { return }
        await end.close()
    }
}
