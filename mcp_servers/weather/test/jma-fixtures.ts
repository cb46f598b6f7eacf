// The recorded JMA responses live in this package (test/fixtures/jma); see its README.
export { jmaFixturesDir, readJmaFixture as readFixture } from '../src/testing/fixtures.js';
