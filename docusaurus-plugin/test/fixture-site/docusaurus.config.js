// A minimal book for the plugin's build test: baseUrl /book/, trailingSlash true, one page with
// `chat: false`. The test sets BOOK_CHAT_WIDGET_DIR and BOOK_CHAT_INDEX_BUILDER.
module.exports = {
  title: 'Fixture book',
  url: 'https://example.invalid',
  baseUrl: '/book/',
  trailingSlash: true,
  onBrokenLinks: 'throw',
  presets: [['classic', {docs: {routeBasePath: 'docs'}, blog: false}]],
  plugins: [
    [
      // The test copies this site elsewhere and says where the plugin is.
      require.resolve(process.env.BOOK_CHAT_PLUGIN || '../..'),
      {
        proxyUrl: null,
        widgetDir: process.env.BOOK_CHAT_WIDGET_DIR,
        indexBuilder: process.env.BOOK_CHAT_INDEX_BUILDER,
        colors: {primary: '#aa3300'},
      },
    ],
  ],
};
