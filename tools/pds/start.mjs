// A Bluesky PDS (@atproto/pds) and the PLC directory it registers its accounts' DIDs with
// (@did-plc/server, in memory), both listening on 127.0.0.1 only, for the live tests
// (tests/fakes/pds.py starts this with the Node 22 of tools/node).
//
// Environment: PLC_PORT, and the PDS's own PDS_* variables (PDS_PORT, PDS_DATA_DIRECTORY,
// PDS_BLOBSTORE_DISK_LOCATION, ...). PDS_HOSTNAME=localhost, dev mode, no invites, no crawlers
// and PDS_DID_PLC_URL=http://localhost:$PLC_PORT are set here; secrets not given are generated.
// Prints one JSON line {"pds": url, "plc": url} once both answer; SIGTERM or SIGINT stops both.
import { randomBytes } from 'node:crypto'
import { Secp256k1Keypair } from '@atproto/crypto'
import { PDS, envToCfg, envToSecrets, readEnv } from '@atproto/pds'
import plcServer from '@did-plc/server'

const HOST = '127.0.0.1'
const { PlcServer, Database } = plcServer

function onLoopback(app) {
  // Both packages call app.listen(port), which listens on every interface.
  const listen = app.listen.bind(app)
  app.listen = (port, ...rest) => listen(port, HOST, ...rest.filter((arg) => typeof arg === 'function'))
}

const plcPort = Number(process.env.PLC_PORT || 2582)
const plc = PlcServer.create({ db: Database.mock(), port: plcPort })
onLoopback(plc.app)
await plc.start()

const env = process.env
env.PDS_HOSTNAME = 'localhost' // dev mode serves http://localhost:<port>
env.PDS_DEV_MODE = 'true'
env.PDS_INVITE_REQUIRED = 'false'
env.PDS_CRAWLERS = ''
env.PDS_DID_PLC_URL = `http://localhost:${plcPort}` // a host name: the PDS refuses an IP here
env.PDS_JWT_SECRET ||= randomBytes(32).toString('hex')
env.PDS_ADMIN_PASSWORD ||= randomBytes(16).toString('hex')
if (!env.PDS_PLC_ROTATION_KEY_K256_PRIVATE_KEY_HEX) {
  const key = await Secp256k1Keypair.create({ exportable: true })
  env.PDS_PLC_ROTATION_KEY_K256_PRIVATE_KEY_HEX = Buffer.from(await key.export()).toString('hex')
}
env.PDS_BLOBSTORE_DISK_TMP_LOCATION ||= `${env.PDS_BLOBSTORE_DISK_LOCATION}/tmp`

const serverEnv = readEnv()
const pds = await PDS.create(envToCfg(serverEnv), envToSecrets(serverEnv))
onLoopback(pds.app)
await pds.start()

console.log(JSON.stringify({ pds: `http://localhost:${serverEnv.port}`, plc: `http://localhost:${plcPort}` }))

let stopping = false
async function stop() {
  if (stopping) return
  stopping = true
  try {
    await pds.destroy()
    await plc.destroy()
  } finally {
    process.exit(0)
  }
}
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
