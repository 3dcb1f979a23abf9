/// The channel's player page: a `<video>` on the multivariant playlist (browsers with native
/// HLS play it directly) and the live latency, read from EXT-X-PROGRAM-DATE-TIME: the newest
/// part's wall-clock end from the media playlist, less how far playback trails the live edge.
enum PlayerPage {
    static func html(channelId: String) -> String {
        """
        <!doctype html>
        <html lang="en">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>Proscenium channel \(channelId)</title>
        <style>
          body { margin: 0; background: #111; color: #ddd; font: 14px system-ui, sans-serif; }
          video { display: block; width: 100vw; max-height: 90vh; background: #000; }
          #info { padding: 8px 12px; }
        </style>
        </head>
        <body>
        <video id="player" src="/hls/\(channelId)/master.m3u8" autoplay muted playsinline controls></video>
        <div id="info">latency <span id="latency">–</span> · <span id="state">loading</span></div>
        <script>
        const video = document.getElementById('player');
        const latencyText = document.getElementById('latency');
        const stateText = document.getElementById('state');
        window.liveLatencySeconds = null;
        async function liveEdgeWallClock() {
          const master = await (await fetch('/hls/\(channelId)/master.m3u8', {cache: 'no-store'})).text();
          const uri = master.split('\\n').find(line => line && !line.startsWith('#'));
          const media = await (await fetch('/hls/\(channelId)/' + uri, {cache: 'no-store'})).text();
          let start = null, parts = 0, edge = null;
          for (const line of media.split('\\n')) {
            if (line.startsWith('#EXT-X-PROGRAM-DATE-TIME:')) { start = Date.parse(line.slice(25)); parts = 0; }
            else if (start !== null && line.startsWith('#EXT-X-PART:')) {
              const d = /DURATION=([0-9.]+)/.exec(line); if (d) parts += parseFloat(d[1]) * 1000;
              edge = Math.max(edge || 0, start + parts);
            } else if (start !== null && line.startsWith('#EXTINF:')) {
              edge = Math.max(edge || 0, start + parseFloat(line.slice(8)) * 1000);
            }
          }
          return edge;
        }
        async function measure() {
          try {
            const edge = await liveEdgeWallClock();
            if (edge !== null && video.seekable.length > 0) {
              const behindEdge = video.seekable.end(video.seekable.length - 1) - video.currentTime;
              window.liveLatencySeconds = (Date.now() - edge) / 1000 + behindEdge;
              latencyText.textContent = window.liveLatencySeconds.toFixed(2) + ' s';
            }
            stateText.textContent = video.paused ? 'paused' : 'playing ' + video.currentTime.toFixed(1) + ' s';
          } catch (e) { stateText.textContent = 'offline'; }
        }
        setInterval(measure, 1000);
        video.addEventListener('error', () => { stateText.textContent = 'error ' + (video.error && video.error.code); });
        </script>
        </body>
        </html>
        """
    }
}
