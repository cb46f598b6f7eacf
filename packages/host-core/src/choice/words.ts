/**
 * Words as the tool index reads them, in Japanese and English: Japanese split as the language splits
 * (ICU's word segmenter, which Node ships), Latin words inside Japanese kept whole, identifiers split at
 * `_`, `-` and camelCase, light English stemming, stop words dropped, and a small bilingual vocabulary
 * that turns the words people use about work tools into the words tool descriptions use.
 */

const segmenter = new Intl.Segmenter('ja', { granularity: 'word' });

const cjk = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const hiraganaOnly = /^[\p{Script=Hiragana}ー]+$/u;

/** English words that say nothing about which tool fits. */
const englishStopWords = new Set(
  (
    'a an the and or but of to in on at for with by from into onto about as is are was were be been being am ' +
    'it its this that these those there here what which who whom whose how when where why can could would should ' +
    'will shall may might must do does did done have has had having i me my mine we us our ours you your yours he ' +
    'she they them their his her not no yes so if then than too very just also only any all some each every ' +
    'please pls thanks thank hey hi ok okay up out over again still yet one ones something anything me let lets ' +
    "now right today's that's it's " +
    'want need like get got go going know tell give see look use using via per etc'
  ).split(' '),
);

/** Japanese function words and fillers the segmenter leaves as words. */
const japaneseStopWords = new Set(
  (
    'こと もの ところ ため よう そう どう どこ どれ なに 何 いつ だれ 誰 これ それ あれ この その あの ' +
    'ください 下さい ちょうだい お願い 願い おねがい して しといて しておいて しちゃって ほしい 欲しい ' +
    'いる ある なる する できる 出来る みたい らしい けど けれど から まで だけ など とか って ってる ' +
    '教え 教えて 見せ 見せて 出し 出して 見 今 全部 全て 一つ ちょっと もう まだ さっき 私 自分 僕 俺'
  ).split(' '),
);

/**
 * Words people use about work tools, and the words tool descriptions use for them. Keys in Japanese match
 * anywhere in the text (Japanese compounds split more than one way); English keys match a whole word.
 */
const vocabulary: ReadonlyArray<readonly [string, string]> = [
  // Code hosting and review
  ['プルリク', 'pull request pr'],
  ['プルリクエスト', 'pull request pr'],
  ['pr', 'pull request'],
  ['prs', 'pull request'],
  ['mr', 'merge request'],
  ['mrs', 'merge request'],
  ['マージリクエスト', 'merge request'],
  ['マージ', 'merge merged'],
  ['レビュー', 'review reviewer'],
  ['承認', 'approve approval approved'],
  ['コンフリクト', 'conflict conflicts'],
  ['ぶつか', 'conflict'],
  ['競合', 'conflict competitor'],
  ['ブランチ', 'branch'],
  ['コミット', 'commit'],
  ['リポジトリ', 'repository repo'],
  ['リポ', 'repository repo'],
  ['repo', 'repository'],
  ['フォーク', 'fork'],
  ['イシュー', 'issue'],
  ['課題', 'issue task'],
  ['チケット', 'issue ticket'],
  ['ticket', 'issue'],
  ['バグ', 'bug issue'],
  ['不具合', 'bug issue error'],
  ['起票', 'create issue'],
  ['差分', 'diff changes'],
  ['変更', 'change changes update diff'],
  ['ファイル', 'file files'],
  ['チェック', 'check checks status'],
  ['グリーン', 'status passing checks'],
  ['コメント', 'comment comments note'],
  ['返信', 'reply replies'],
  ['アサイン', 'assigned assignee'],
  ['担当', 'assignee assigned assign'],
  ['振られ', 'assigned'],
  ['メンバー', 'member members'],
  ['参加', 'member members attendee'],
  ['グループ', 'group'],
  ['プロジェクト', 'project'],
  ['保護', 'protect protected'],
  ['デフォルトブランチ', 'default branch'],
  ['タグ', 'tag'],
  ['リリース', 'release'],
  ['誰が', 'user author blame'],
  ['最後に触', 'blame'],
  ['絵文字', 'emoji reaction'],
  ['下書き', 'draft'],
  ['文法', 'lint validate syntax'],
  ['todo', 'todo todos'],
  // CI and deploys
  ['パイプライン', 'pipeline'],
  ['ビルド', 'build job'],
  ['ジョブ', 'job'],
  ['ワークフロー', 'workflow'],
  ['テスト', 'test tests'],
  ['不安定', 'flaky'],
  ['落ち', 'failed failure failing'],
  ['失敗', 'failed failure'],
  ['再実行', 'rerun'],
  ['もう一回', 'rerun again'],
  ['もう一度', 'rerun again'],
  ['デプロイ', 'deploy deployment release'],
  ['戻し', 'rollback revert'],
  ['ロールバック', 'rollback'],
  ['切り戻', 'rollback'],
  ['本番', 'production prod'],
  ['ステージング', 'staging'],
  ['環境', 'environment environments'],
  // Errors, monitoring, incidents
  ['エラー', 'error errors exception'],
  ['例外', 'exception error errors events'],
  ['壊れ', 'error errors issue broken'],
  ['障害', 'incident incidents outage'],
  ['インシデント', 'incident incidents'],
  ['アラート', 'alert monitor monitors'],
  ['監視', 'monitor monitors monitoring'],
  ['ログ', 'log logs'],
  ['メトリクス', 'metric metrics'],
  ['ダッシュボード', 'dashboard dashboards'],
  ['トレース', 'trace traces span'],
  ['遅い', 'slow latency performance'],
  ['原因', 'root cause analyze'],
  ['根本', 'root cause'],
  ['分析', 'analyze analysis'],
  ['解決', 'resolve resolved'],
  ['メンテ', 'maintenance downtime'],
  ['止め', 'mute stop downtime'],
  ['サーバー', 'server host hosts'],
  ['ホスト', 'host hosts'],
  ['何台', 'count hosts'],
  ['何回', 'count events'],
  // Documents and wiki
  ['ページ', 'page pages'],
  ['ドキュメント', 'document documentation docs'],
  ['資料', 'document docs page'],
  ['議事録', 'page notes meeting'],
  ['ウィキ', 'wiki page'],
  ['wiki', 'page'],
  ['マークダウン', 'markdown'],
  ['中身', 'content contents read'],
  ['追記', 'append add block children'],
  ['チェックリスト', 'checklist to do block'],
  ['ブロック', 'block blocks'],
  ['データベース', 'database'],
  ['表', 'table database data source'],
  ['ステータス', 'status property'],
  ['移動', 'move'],
  ['アーカイブ', 'archive'],
  ['検索', 'search find'],
  ['探し', 'search find'],
  ['探す', 'search find'],
  ['一覧', 'list'],
  ['作っ', 'create'],
  ['作成', 'create'],
  ['追加', 'add create'],
  ['登録', 'create register add'],
  ['削除', 'delete remove'],
  ['消し', 'delete remove'],
  ['更新', 'update'],
  ['編集', 'edit update'],
  ['書き換え', 'edit update write'],
  ['読ん', 'read'],
  ['読ま', 'read'],
  ['保存', 'save download write'],
  // Chat
  ['チャンネル', 'channel channels'],
  ['メッセージ', 'message messages'],
  ['投稿', 'post message'],
  ['流し', 'post message'],
  ['告知', 'post message announcement'],
  ['やりとり', 'history messages'],
  ['やり取り', 'history messages'],
  ['履歴', 'history'],
  ['スレッド', 'thread replies'],
  ['リアクション', 'reaction emoji'],
  ['プロフィール', 'profile user'],
  ['役職', 'profile title'],
  ['ユーザー', 'user users'],
  ['タイムゾーン', 'timezone profile'],
  // Payments
  ['残高', 'balance'],
  ['請求書', 'invoice invoices'],
  ['請求', 'invoice billing charge'],
  ['支払', 'payment paid'],
  ['払われ', 'paid unpaid invoice'],
  ['未払', 'unpaid invoice open'],
  ['返金', 'refund'],
  ['全額返', 'refund'],
  ['代金', 'payment charge'],
  ['チャージバック', 'dispute disputes chargeback'],
  ['異議', 'dispute'],
  ['顧客', 'customer customers'],
  ['お客さん', 'customer customers'],
  ['クーポン', 'coupon discount'],
  ['割引', 'coupon discount'],
  ['%オフ', 'discount off'],
  ['サブスク', 'subscription subscriptions'],
  ['商品', 'product products'],
  ['価格', 'price prices'],
  ['料金', 'price pricing'],
  ['決済', 'payment checkout'],
  ['注文', 'order payment intent'],
  ['支払いリンク', 'payment link'],
  // Databases
  ['テーブル', 'table tables'],
  ['カラム', 'column schema'],
  ['スキーマ', 'schema'],
  ['マイグレーション', 'migration'],
  ['コレクション', 'collection collections'],
  ['インデックス', 'index indexes'],
  ['クエリ', 'query'],
  ['sql', 'query sql'],
  ['件数', 'count'],
  ['数え', 'count'],
  ['容量', 'size storage stats'],
  ['集計', 'aggregate count'],
  ['点検', 'advisors security check'],
  ['セキュリティ', 'security'],
  ['反映', 'merge apply deploy'],
  // Browser
  ['スクショ', 'screenshot'],
  ['スクリーンショット', 'screenshot'],
  ['画面', 'page screen screenshot'],
  ['クリック', 'click'],
  ['開い', 'open navigate'],
  ['開く', 'open navigate'],
  ['入力', 'type fill'],
  ['フォーム', 'form fill'],
  ['コンソール', 'console'],
  ['パフォーマンス', 'performance trace'],
  ['計測', 'measure performance trace'],
  ['測っ', 'measure audit'],
  ['スコア', 'score audit'],
  ['メモリ', 'memory heap'],
  ['ヒープ', 'heap snapshot'],
  ['スナップショット', 'snapshot'],
  ['実行', 'run execute evaluate'],
  ['ネットワーク', 'network requests'],
  ['ボタン', 'button element click'],
  // Files
  ['フォルダ', 'folder directory'],
  ['ディレクトリ', 'directory'],
  ['置いて', 'list directory files'],
  ['一番', 'largest top'],
  ['大きい', 'size largest'],
  // Calendar
  ['予定', 'event events calendar schedule'],
  ['スケジュール', 'schedule event calendar'],
  ['カレンダー', 'calendar'],
  ['会議', 'meeting event'],
  ['打ち合わせ', 'meeting event'],
  ['ミーティング', 'meeting event'],
  ['定例', 'meeting recurring event'],
  ['1on1', 'meeting event'],
  ['招待', 'invite invitation event'],
  ['出席', 'respond accept attend'],
  ['欠席', 'respond decline'],
  ['空いて', 'free busy availability'],
  ['空き', 'free busy availability'],
  ['ずらし', 'update reschedule move'],
  ['入れ', 'create add'],
  ['明日', 'tomorrow events'],
  ['今日', 'today'],
  ['来週', 'next week'],
  // Mail
  ['メール', 'email mail message'],
  ['受信', 'inbox received'],
  ['送信', 'send'],
  ['送っ', 'send'],
  ['添付', 'attachment'],
  ['ラベル', 'label labels'],
  ['振り分け', 'filter label'],
  ['フィルタ', 'filter'],
  ['未読', 'unread'],
  ['既読', 'read mark'],
  // Maps
  ['地図', 'map maps'],
  ['行き方', 'directions route'],
  ['電車', 'directions transit'],
  ['どれくらいかか', 'directions distance duration'],
  ['距離', 'distance'],
  ['近く', 'nearby places search'],
  ['お店', 'places place restaurant'],
  ['ランチ', 'restaurant places food'],
  ['住所', 'address geocode'],
  ['緯度', 'latitude geocode coordinates'],
  ['経度', 'longitude geocode coordinates'],
  ['標高', 'elevation'],
  // Web
  ['ネット', 'web search internet'],
  ['ウェブ', 'web'],
  ['ニュース', 'news'],
  ['画像', 'image images'],
  ['動画', 'video videos'],
  ['調べ', 'search research'],
  ['調査', 'research search'],
  ['レポート', 'report research'],
  ['情報源', 'sources research'],
  ['クロール', 'crawl'],
  ['スクレイピング', 'scrape'],
  ['抜き出', 'extract filter query'],
  ['抽出', 'extract'],
  ['変換', 'convert parse'],
  ['知らせ', 'monitor notify watch'],
  ['変わったら', 'monitor change'],
  ['公式', 'documentation docs'],
  ['ライブラリ', 'library docs'],
  ['サポート終了', 'end of life'],
  // Feature flags
  ['フラグ', 'flag flags feature'],
  ['機能フラグ', 'feature flag'],
  ['オンに', 'on enabled status'],
  ['オフに', 'off disabled'],
  ['有効', 'enable enabled'],
  ['無効', 'disable disabled'],
  ['利用状況', 'status usage'],
  // Memory
  ['覚えて', 'remember memory entity entities observation'],
  ['覚え', 'remember memory'],
  ['記憶', 'memory remember'],
  ['忘れ', 'delete memory'],
  // Arithmetic and time
  ['足す', 'add sum'],
  ['計算', 'calculate sum'],
  ['合計', 'sum total'],
  ['天気', 'weather forecast'],
  ['天気予報', 'weather forecast'],
  ['傘', 'weather rain forecast'],
  ['雨', 'rain weather forecast'],
  ['気温', 'temperature weather forecast'],
  ['警報', 'warning alert weather'],
  ['時刻', 'time'],
  ['何時', 'time'],
  // Products people name in katakana
  ['ギットハブ', 'github'],
  ['ギットラボ', 'gitlab'],
  ['ノーション', 'notion'],
  ['ジラ', 'jira'],
  ['スラック', 'slack'],
  ['セントリー', 'sentry'],
  ['データドッグ', 'datadog'],
  ['ストライプ', 'stripe'],
  ['スーパーベース', 'supabase'],
  ['モンゴ', 'mongodb'],
  ['グーグル', 'google'],
  ['ジーメール', 'gmail'],
  ['gカレ', 'google calendar'],
  // English words people use for what descriptions call otherwise
  ['ticket', 'issue'],
  ['bug', 'issue'],
  ['bugs', 'issue'],
  ['meeting', 'event'],
  ['meetings', 'event'],
  ['mail', 'email'],
  ['inbox', 'email'],
  ['doc', 'document page'],
  ['docs', 'documentation document'],
  ['wiki', 'page'],
  ['chargeback', 'dispute'],
  ['chargebacks', 'dispute'],
  ['screenshot', 'screenshot'],
  ['outage', 'incident'],
  ['broke', 'error issue'],
  ['broken', 'error issue'],
  ['crash', 'error issue'],
  ['crashes', 'error issue'],
  ['flaky', 'flaky test'],
  ['slow', 'performance latency'],
  ['revert', 'rollback'],
  ['ping', 'message'],
  ['dm', 'message'],
  ['post', 'message'],
  ['free', 'freebusy availability'],
  ['available', 'freebusy availability'],
  ['reschedule', 'update event'],
  ['directions', 'route'],
  ['commute', 'directions'],
  ['coordinates', 'geocode'],
  ['remember', 'memory entity observation'],
  ['forget', 'delete memory'],
  ['toggle', 'flag'],
  ['rollout', 'flag'],
  // Verbs and idioms people use for what tools call create, update, delete, list
  ['make', 'create'],
  ['made', 'create'],
  ['set up', 'create'],
  ['spin', 'create start'],
  ['add', 'create add'],
  ['new', 'create'],
  ['open', 'create open'],
  ['file', 'create file'],
  ['log', 'create log'],
  ['bump', 'update priority'],
  ['change', 'update edit'],
  ['switch', 'update'],
  ['rename', 'update'],
  ['edit', 'update'],
  ['fix', 'update'],
  ['flip', 'update toggle'],
  ['flipped', 'update toggle audit log'],
  ['turn', 'update toggle'],
  ['move', 'move update'],
  ['cancel', 'delete cancel'],
  ['call off', 'delete cancel'],
  ['remove', 'delete remove'],
  ['nuke', 'delete'],
  ['drop', 'delete'],
  ['get rid', 'delete remove'],
  ['kill', 'delete stop'],
  ['close', 'close update state'],
  ['closed', 'close state'],
  ['reopen', 'update state'],
  ['undo', 'revert rollback'],
  ['show', 'list get'],
  ['what', 'list get'],
  ['which', 'list search'],
  ['any', 'list search'],
  ['find', 'search find'],
  ['look up', 'search get'],
  ['dig', 'search'],
  ['grab', 'get download fetch scrape'],
  ['pull', 'get fetch extract'],
  ['fetch', 'get fetch'],
  ['read', 'get read'],
  ['check', 'get status'],
  ['status', 'get status'],
  ['state', 'status'],
  ['who', 'user member author audit'],
  ['when', 'date time'],
  ['tell', 'post message send'],
  ['announce', 'post message'],
  ['say', 'post message reply'],
  ['answer', 'reply'],
  ['respond', 'reply respond'],
  ['thumbs', 'reaction emoji'],
  ['emoji', 'reaction'],
  ['react', 'reaction'],
  ['tag', 'label tag'],
  ['tags', 'label tag'],
  ['label', 'label'],
  ['sort', 'filter'],
  ['auto', 'filter rule'],
  ['rule', 'filter'],
  ['rules', 'filter'],
  ['promo', 'coupon promotion'],
  ['discount', 'coupon'],
  ['code', 'code coupon'],
  ['plan', 'subscription price'],
  ['upgrade', 'subscription update'],
  ['downgrade', 'subscription update'],
  ['tier', 'subscription price'],
  ['refund', 'refund'],
  ['money', 'balance payment'],
  ['paid', 'payment invoice'],
  ['owe', 'invoice'],
  ['chart', 'metrics query graph'],
  ['graph', 'metrics query'],
  ['cpu', 'metrics'],
  ['latency', 'metrics trace'],
  ['usage', 'metrics usage'],
  ['mute', 'mute downtime'],
  ['unmute', 'unmute'],
  ['silence', 'mute downtime'],
  ['window', 'downtime'],
  ['paged', 'incident alert'],
  ['page', 'page'],
  ['on call', 'incident'],
  ['drive', 'distance directions'],
  ['far', 'distance'],
  ['how long', 'distance duration'],
  ['street', 'reverse geocode address'],
  ['sea level', 'elevation'],
  ['altitude', 'elevation'],
  ['high', 'elevation'],
  ['hours', 'place details'],
  ['reviews', 'place details review'],
  ['rating', 'place details'],
  ['paper', 'papers research'],
  ['papers', 'papers research'],
  ['academic', 'papers research'],
  ['whole site', 'crawl'],
  ['every page', 'crawl'],
  ['site', 'crawl map website'],
  ['article', 'extract scrape'],
  ['text', 'extract content'],
  ['keep in mind', 'memory remember create relation'],
  ['note', 'memory observation note'],
  ['reports to', 'relation'],
  ['folder', 'directory'],
  ['folders', 'directory'],
  ['dir', 'directory'],
  ['all hands', 'meeting event'],
  ['standup', 'meeting event'],
  ['sync', 'meeting event'],
  ['appointment', 'event'],
  ['invite', 'invite event attendee'],
  ['busy', 'freebusy'],
  ['slot', 'freebusy'],
  ['slots', 'freebusy'],
  ['next', 'search upcoming'],
  ['last', 'search latest recent'],
  ['latest', 'latest'],
  ['recent', 'latest recent'],
  ['sprint', 'search issue jql'],
  ['board', 'search issue project'],
  ['priority', 'update issue'],
  ['duplicate', 'delete'],
  ['escalate', 'update priority'],
  ['escalating', 'update priority'],
  ['orgs', 'organization'],
  ['org', 'organization'],
  ['team', 'team member'],
  ['tracker', 'issue'],
  ['targeting', 'update flag targeting'],
  ['beta', 'flag'],
  ['percent', 'rollout'],
  ['%', 'rollout'],
  ['js', 'javascript console'],
  ['console', 'console message'],
  ['deploy', 'deploy deployment release'],
  ['release', 'release'],
  ['pipeline', 'pipeline'],
  ['build', 'build'],
  ['logs', 'log'],
  // Japanese verbs for the same
  ['作って', 'create'],
  ['作る', 'create'],
  ['作成して', 'create'],
  ['新しく', 'create new'],
  ['切って', 'create'],
  ['立て', 'create'],
  ['変えて', 'update change'],
  ['変更して', 'update'],
  ['上げ', 'update'],
  ['付け替え', 'update assign'],
  ['直して', 'update fix'],
  ['消して', 'delete remove'],
  ['外して', 'remove delete'],
  ['取り消', 'cancel delete'],
  ['キャンセル', 'cancel delete'],
  ['中止', 'cancel delete'],
  ['解除', 'unmute remove delete'],
  ['閉じ', 'close'],
  ['クローズ', 'close'],
  ['状況', 'status get'],
  ['どうなって', 'status get'],
  ['確認', 'get check status'],
  ['見たい', 'get list'],
  ['返しといて', 'reply'],
  ['返して', 'reply'],
  ['返事', 'reply respond'],
  ['伝えて', 'post message send'],
  ['知らせて', 'post message notify'],
  ['連絡', 'post message send'],
  ['スレ', 'thread replies'],
  ['mtg', 'meeting event'],
  ['会', 'meeting event'],
  ['次の', 'upcoming search'],
  ['最新', 'latest'],
  ['直近', 'recent latest'],
  ['クラッシュ', 'crash error issue'],
  ['多く出て', 'issue error count'],
  ['上位', 'top'],
  ['口コミ', 'reviews place details'],
  ['評価', 'rating reviews'],
  ['営業時間', 'place details hours'],
  ['ターゲティング', 'targeting flag update'],
  ['β', 'flag beta'],
  ['ミュート', 'mute'],
  ['組織', 'organization'],
  ['優先度', 'priority update'],
  ['スプリント', 'sprint issue search'],
  ['ボード', 'board issue search'],
  ['ラベル', 'label'],
  ['タグ', 'label tag'],
  ['割引コード', 'coupon'],
  ['プラン', 'subscription plan'],
  ['フォルダを作', 'create directory'],
];

const japaneseKeys: Array<readonly [string, string[]]> = [];
const englishKeys = new Map<string, string[]>();
const englishPhrases: Array<readonly [string, string[]]> = [];
for (const [key, words] of vocabulary) {
  const expansions = words.split(' ');
  if (cjk.test(key)) japaneseKeys.push([key, expansions]);
  else if (/[^a-z0-9]/.test(key)) englishPhrases.push([` ${key} `, expansions]);
  else englishKeys.set(key, [...(englishKeys.get(key) ?? []), ...expansions]);
}

/** Words the stemmer would turn into other words. */
const unstemmed = new Set(['news', 'this', 'always', 'series', 'analysis', 'alias', 'canvas']);

/** A light, consistent stem of an English word: plurals and the common verb endings. */
export function stem(word: string): string {
  if (word.length <= 3 || /\d/.test(word) || unstemmed.has(word)) return word;
  if (word.endsWith('ies') && word.length > 4) return `${word.slice(0, -3)}y`;
  if (word.endsWith('sses')) return word.slice(0, -2);
  if (word.endsWith('ing') && word.length > 5) return word.slice(0, -3);
  if (word.endsWith('ed') && word.length > 4 && !word.endsWith('eed')) return word.slice(0, -2);
  if (word.endsWith('es') && /(?:ch|sh|x|ss)es$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('s') && !word.endsWith('ss') && !word.endsWith('us')) return word.slice(0, -1);
  return word;
}

/** Splits identifiers: `get_pull_request`, `API-post-search`, `listPullRequests`, `db-stats`. */
function splitIdentifier(text: string): string {
  return text.replace(/([a-z0-9])([A-Z])/g, '$1 $2').replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2');
}

/** One English (or other non-CJK) word, stemmed; undefined for stop words and single letters. */
function latinTerm(word: string): string | undefined {
  const lower = word.toLowerCase();
  if (lower.length < 2 || englishStopWords.has(lower)) return undefined;
  return stem(lower);
}

/**
 * The index terms of a text, in order, repeats kept (term frequency counts). Japanese is segmented;
 * hiragana-only pieces of two characters or less (particles, endings) and stop words are dropped.
 */
export function terms(text: string): string[] {
  const found: string[] = [];
  for (const piece of text.normalize('NFKC').split(/[^\p{L}\p{N}ー]+/u)) {
    if (!piece) continue;
    if (!cjk.test(piece)) {
      // `GitHub` is both `github` and `git hub`; `listPullRequests` is also `list pull requests`.
      const parts = splitIdentifier(piece).split(' ');
      for (const word of parts.length > 1 ? [piece, ...parts] : [piece]) {
        const term = latinTerm(word);
        if (term) found.push(term);
      }
      continue;
    }
    for (const { segment, isWordLike } of segmenter.segment(piece)) {
      if (!isWordLike) continue;
      if (!cjk.test(segment)) {
        const term = latinTerm(segment);
        if (term) found.push(term);
      } else if (!japaneseStopWords.has(segment) && !(hiraganaOnly.test(segment) && segment.length <= 2)) {
        found.push(segment);
      }
    }
  }
  return found;
}

/**
 * The words a question adds through the vocabulary: English words for the Japanese it contains, and the
 * descriptions' words for the English people say. Each appears once.
 */
export function vocabularyTerms(text: string): string[] {
  const normalized = text.normalize('NFKC').toLowerCase();
  const added = new Set<string>();
  for (const [key, words] of japaneseKeys) if (normalized.includes(key)) for (const w of words) added.add(w);
  const words = normalized.split(/[^\p{L}\p{N}%]+/u);
  for (const word of words) for (const expansion of englishKeys.get(word) ?? []) added.add(expansion);
  const spaced = ` ${words.join(' ')} `;
  for (const [phrase, expansions] of englishPhrases)
    if (spaced.includes(phrase)) for (const expansion of expansions) added.add(expansion);
  return [...added].flatMap((word) => terms(word));
}

/** Katakana read as Latin letters, enough to compare a loanword with the English word it came from. */
const kana: Record<string, string> = Object.fromEntries(
  (
    'ア:a イ:i ウ:u エ:e オ:o カ:ka キ:ki ク:ku ケ:ke コ:ko ガ:ga ギ:gi グ:gu ゲ:ge ゴ:go サ:sa シ:si ス:su セ:se ソ:so ' +
    'ザ:za ジ:zi ズ:zu ゼ:ze ゾ:zo タ:ta チ:ti ツ:tu テ:te ト:to ダ:da ヂ:zi ヅ:zu デ:de ド:do ナ:na ニ:ni ヌ:nu ネ:ne ノ:no ' +
    'ハ:ha ヒ:hi フ:fu ヘ:he ホ:ho バ:ba ビ:bi ブ:bu ベ:be ボ:bo パ:pa ピ:pi プ:pu ペ:pe ポ:po マ:ma ミ:mi ム:mu メ:me モ:mo ' +
    'ヤ:ya ユ:yu ヨ:yo ラ:ra リ:ri ル:ru レ:re ロ:ro ワ:wa ヲ:o ン:n ヴ:bu ァ:a ィ:i ゥ:u ェ:e ォ:o ャ:ya ュ:yu ョ:yo ッ: ー:'
  )
    .split(' ')
    .map((pair) => pair.split(':') as [string, string]),
);

/**
 * The consonants of a word as Japanese hears them, so that `パイプライン` and `pipeline` (`pprn`),
 * `ターゲティング` and `targeting` (`tgtng`) meet: English spellings folded (`tion`, `sh`, `ch`, `c`,
 * `l`→`r`, `v`→`b`), an English `r` that ends a syllable dropped (as `ー` drops it), vowels and glides dropped,
 * repeats kept once.
 */
export function soundSkeleton(word: string): string {
  let text = [...word]
    .map((char) => kana[char] ?? char)
    .join('')
    .toLowerCase();
  text = text
    .replace(/([aeiou])r(?=[^aeiou]|$)/g, '$1')
    .replace(/ge$/, 'z')
    .replace(/[st]ion/g, 'syon')
    .replace(/ph/g, 'f')
    .replace(/ck/g, 'k')
    .replace(/sh/g, 's')
    .replace(/ch/g, 't')
    .replace(/th/g, 's')
    .replace(/c(?=[eiy])/g, 's')
    .replace(/c/g, 'k')
    .replace(/x/g, 'ks')
    .replace(/qu/g, 'k')
    .replace(/j/g, 'z')
    .replace(/v/g, 'b')
    .replace(/l/g, 'r');
  return text
    .replace(/[^a-z]/g, '')
    .replace(/[aeiouyhw]/g, '')
    .replace(/(.)\1+/g, '$1');
}

const katakanaWord = /^[\p{Script=Katakana}ー]{3,}$/u;

/** Whether a query word is a katakana loanword worth comparing by sound. */
export function isLoanword(word: string): boolean {
  return katakanaWord.test(word);
}
