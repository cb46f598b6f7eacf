// Test support for hosts embedding this server: a loopback fake of www.jma.go.jp serving the recorded
// responses in test/fixtures/jma. Not used by the server itself.
export {
  defaultForecastFixtures,
  type FakeJma,
  type FakeJmaBehaviour,
  type FakeJmaOptions,
  startFakeJma,
} from './fake-jma.js';
export { jmaFixturesDir, readJmaFixture } from './fixtures.js';
